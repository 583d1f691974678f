// A bare CFF font program (FontFile3 /Type1C or /CIDFontType0C, Adobe TN
// 5176), read as far as PDF/A's glyph rules need: the glyphs it has (by
// name through the charset, or by CID for a CID-keyed font), each glyph's
// advance width (the first operand of its Type 2 charstring, TN 5177
// section 3.1, else the Private DICT's defaultWidthX), the FontMatrix, and
// the built-in encoding. Untrusted bytes: every offset is checked, a read
// past the end throws CffError, and charstring interpretation is bounded.
import { charstringWidth } from './cff-charstring.js';
import { CffError, readDict, readIndex, readPrivate, type PrivateDict } from './cff-tables.js';
import { CFF_STANDARD_STRINGS } from './glyph-names.js';

export interface CffProgram {
  readonly glyphCount: number;
  /** A CID-keyed font (the Top DICT has ROS). */
  readonly cidKeyed: boolean;
  /** Glyph id by glyph name (name-keyed fonts) or by CID (CID-keyed), from the charset. */
  readonly byName: ReadonlyMap<string, number>;
  readonly byCid: ReadonlyMap<number, number>;
  /** The charset's names (name-keyed) in glyph order, .notdef first. */
  readonly names: readonly string[];
  /** Glyph id by code from the font's own encoding; undefined for the standard encoding (offset 0) or a CID-keyed font. */
  readonly builtInEncoding: ReadonlyMap<number, number> | undefined;
  /** Advance of a glyph in 1/1000 text space units (FontMatrix applied); undefined when its charstring cannot be read. */
  widthOf(gid: number): number | undefined;
}

export function readCff(bytes: Uint8Array): CffProgram {
  if (bytes.length < 4 || bytes[0] !== 1) throw new CffError('not a CFF version 1 program');
  const header = bytes[2]!;
  const names = readIndex(bytes, header);
  const topDicts = readIndex(bytes, names.end);
  const strings = readIndex(bytes, topDicts.end);
  const globalSubrs = readIndex(bytes, strings.end);
  if (topDicts.count < 1) throw new CffError('no Top DICT');
  const [topStart, topEnd] = topDicts.item(0);
  const top = readDict(bytes, topStart, topEnd);
  const charStringsAt = top.get(17)?.[0];
  if (charStringsAt === undefined) throw new CffError('no CharStrings');
  const charStrings = readIndex(bytes, charStringsAt);
  const glyphCount = charStrings.count;
  const cidKeyed = top.has(1230);
  const string = (sid: number): string => {
    if (sid < CFF_STANDARD_STRINGS.length) return CFF_STANDARD_STRINGS[sid] ?? '';
    const i = sid - CFF_STANDARD_STRINGS.length;
    if (i >= strings.count) return '';
    const [s, e] = strings.item(i);
    return Buffer.from(bytes.buffer, bytes.byteOffset + s, e - s).toString('latin1');
  };
  // Charset: the SID (name-keyed) or CID of each glyph after .notdef.
  const ids: number[] = [0];
  const charsetAt = top.get(15)?.[0] ?? 0;
  if (charsetAt > 2) {
    let at = charsetAt;
    const format = bytes[at++];
    const u16 = (): number => {
      if (at + 2 > bytes.length) throw new CffError('charset past the end');
      const value = (bytes[at]! << 8) | bytes[at + 1]!;
      at += 2;
      return value;
    };
    while (ids.length < glyphCount) {
      if (format === 0) ids.push(u16());
      else if (format === 1 || format === 2) {
        const first = u16();
        const left = format === 1 ? bytes[at++]! : u16();
        for (let k = 0; k <= left && ids.length < glyphCount; k++) ids.push(first + k);
      } else throw new CffError(`charset format ${format}`);
    }
  } else if (charsetAt === 0) {
    // ISOAdobe: SIDs 1.. in order.
    for (let sid = 1; ids.length < glyphCount; sid++) ids.push(sid);
  }
  const byName = new Map<string, number>();
  const byCid = new Map<number, number>();
  const glyphNames: string[] = [];
  ids.forEach((id, gid) => {
    if (cidKeyed) byCid.set(id, gid);
    else {
      const name = gid === 0 ? '.notdef' : string(id);
      glyphNames.push(name);
      if (!byName.has(name)) byName.set(name, gid);
    }
  });
  // Private DICTs: one, or one per Font DICT of a CID-keyed font with an FDSelect.
  const privates: PrivateDict[] = [];
  let fdOf: (gid: number) => number = () => 0;
  if (cidKeyed && top.has(1236)) {
    const fdArray = readIndex(bytes, top.get(1236)![0]!);
    for (let i = 0; i < fdArray.count; i++) {
      const [s, e] = fdArray.item(i);
      privates.push(readPrivate(bytes, readDict(bytes, s, e).get(18)));
    }
    fdOf = fdSelect(bytes, top.get(1237)?.[0], glyphCount);
  } else privates.push(readPrivate(bytes, top.get(18)));
  const matrix = top.get(1207);
  const scale = (matrix?.[0] ?? 0.001) * 1000;
  const builtInEncoding = cidKeyed ? undefined : encoding(bytes, top.get(16)?.[0] ?? 0, ids, glyphCount);
  return {
    glyphCount,
    cidKeyed,
    byName,
    byCid,
    names: glyphNames,
    builtInEncoding,
    widthOf(gid) {
      if (gid < 0 || gid >= glyphCount) return undefined;
      const priv = privates[fdOf(gid)] ?? privates[0];
      if (priv === undefined) return undefined;
      try {
        const [s, e] = charStrings.item(gid);
        const width = charstringWidth(bytes, s, e, priv.subrs, globalSubrs);
        if (width === undefined) return undefined;
        return (width === null ? priv.defaultWidth : priv.nominalWidth + width) * scale;
      } catch {
        return undefined;
      }
    },
  };
}

function fdSelect(bytes: Uint8Array, at: number | undefined, glyphCount: number): (gid: number) => number {
  if (at === undefined || at >= bytes.length) return () => 0;
  const format = bytes[at];
  if (format === 0) return (gid) => bytes[at + 1 + gid] ?? 0;
  if (format !== 3) return () => 0;
  const ranges = (bytes[at + 1]! << 8) | bytes[at + 2]!;
  const list: [number, number][] = [];
  for (let i = 0; i < ranges && at + 3 + 3 * i + 3 <= bytes.length; i++) {
    const p = at + 3 + 3 * i;
    list.push([(bytes[p]! << 8) | bytes[p + 1]!, bytes[p + 2]!]);
  }
  return (gid) => {
    let fd = 0;
    for (const [first, index] of list) {
      if (first > gid || first >= glyphCount) break;
      fd = index;
    }
    return fd;
  };
}

/** The custom encoding's code → glyph id; undefined for the predefined Standard (0) and Expert (1) encodings. */
function encoding(bytes: Uint8Array, at: number, ids: readonly number[], glyphCount: number): Map<number, number> | undefined {
  if (at <= 1 || at >= bytes.length) return undefined;
  const map = new Map<number, number>();
  const format = bytes[at]! & 0x7f;
  const supplements = (bytes[at]! & 0x80) !== 0;
  let p = at + 1;
  if (format === 0) {
    const count = bytes[p++] ?? 0;
    for (let gid = 1; gid <= count && gid < glyphCount; gid++) map.set(bytes[p++] ?? 0, gid);
  } else if (format === 1) {
    const ranges = bytes[p++] ?? 0;
    let gid = 1;
    for (let r = 0; r < ranges; r++) {
      const first = bytes[p++] ?? 0;
      const left = bytes[p++] ?? 0;
      for (let k = 0; k <= left && gid < glyphCount; k++) map.set(first + k, gid++);
    }
  } else return undefined;
  if (supplements) {
    const count = bytes[p++] ?? 0;
    for (let i = 0; i < count; i++) {
      const code = bytes[p] ?? 0;
      const sid = ((bytes[p + 1] ?? 0) << 8) | (bytes[p + 2] ?? 0);
      p += 3;
      const gid = ids.indexOf(sid);
      if (gid > 0) map.set(code, gid);
    }
  }
  return map;
}
