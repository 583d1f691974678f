// An embedded TrueType program (FontFile2) as the font rules read it: its
// glyph count, each glyph's advance in 1/1000 em, and the glyph a simple
// font's code selects (7.21.5-1 of PDF/UA, 6.3.5/6.3.6 of PDF/A-1,
// 6.2.11.4.1/6.2.11.5 of PDF/A-2). Codes reach glyphs the way ISO 32000-1
// §9.6.6.4 says: a non-symbolic font's (3,1) cmap takes the code's Unicode
// value (only codes whose value is certain here: ASCII and Latin-1, where
// WinAnsi and Unicode agree), its (1,0) cmap only ASCII codes (where Mac
// Roman and WinAnsi agree); a symbolic font's (3,0) cmap the code plus
// 0xF000 (or the code), else its (1,0) cmap the code itself. A code no
// subtable resolves is not judged: the rules need the program's answer.
import { tableDirectory, viewOf } from '../../untrusted/sfnt-directory.js';

export interface TrueTypeProgram {
  /** maxp's numGlyphs. */
  readonly glyphCount: number;
  /** The glyph id a simple font's code selects; undefined when no subtable says. */
  glyphOf(code: number, symbolic: boolean): number | undefined;
  /** Advance of a glyph in 1/1000 em; undefined past hmtx. */
  advance(gid: number): number | undefined;
}

export interface TrueTypeWidths {
  /** Width in 1/1000 em of the glyph the code selects; undefined when the program does not say. */
  widthOf(code: number, symbolic: boolean): number | undefined;
}

export function trueTypeWidths(bytes: Uint8Array): TrueTypeWidths | undefined {
  const program = trueTypeProgram(bytes);
  if (program === undefined) return undefined;
  return {
    widthOf(code, symbolic) {
      const gid = program.glyphOf(code, symbolic);
      return gid === undefined || gid === 0 ? undefined : program.advance(gid);
    },
  };
}

export function trueTypeProgram(bytes: Uint8Array): TrueTypeProgram | undefined {
  try {
    const tables = tableDirectory(bytes, 0, 'the embedded font');
    const view = viewOf(bytes);
    const head = tables.get('head');
    const hhea = tables.get('hhea');
    const hmtx = tables.get('hmtx');
    const maxp = tables.get('maxp');
    const cmap = tables.get('cmap');
    if (head === undefined || hhea === undefined || hmtx === undefined) return undefined;
    const unitsPerEm = view.getUint16(head.offset + 18);
    const metrics = view.getUint16(hhea.offset + 34);
    if (unitsPerEm === 0 || metrics === 0) return undefined;
    const glyphCount = maxp === undefined ? metrics : view.getUint16(maxp.offset + 4);
    const subtables = new Map<string, number>();
    const count = cmap === undefined ? 0 : view.getUint16(cmap.offset + 2);
    for (let i = 0; i < count && cmap !== undefined; i++) {
      const record = cmap.offset + 4 + 8 * i;
      subtables.set(`${view.getUint16(record)},${view.getUint16(record + 2)}`, cmap.offset + view.getUint32(record + 4));
    }
    const lookUp = (key: string, char: number): number | undefined => {
      const at = subtables.get(key);
      return at === undefined ? undefined : glyphIn(view, at, char);
    };
    return {
      glyphCount,
      glyphOf(code, symbolic) {
        if (symbolic) return lookUp('3,0', 0xf000 + code) ?? lookUp('3,0', code) ?? lookUp('1,0', code);
        if (subtables.has('3,1')) return code < 0x80 || code > 0x9f ? lookUp('3,1', code) : undefined;
        // Mac Roman and WinAnsi agree on ASCII only.
        return code < 0x80 ? lookUp('1,0', code) : undefined;
      },
      advance(gid) {
        const at = hmtx.offset + 4 * Math.min(gid, metrics - 1);
        return at + 2 <= hmtx.offset + hmtx.length && at + 2 <= view.byteLength ? (view.getUint16(at) * 1000) / unitsPerEm : undefined;
      },
    };
  } catch {
    return undefined;
  }
}

/** The glyph of `char` in a format 0, 4 or 6 subtable; undefined for others or when it has none. */
function glyphIn(view: DataView, at: number, char: number): number | undefined {
  if (at + 6 > view.byteLength) return undefined;
  const format = view.getUint16(at);
  if (format === 0) return char < 256 && at + 6 + char < view.byteLength ? view.getUint8(at + 6 + char) : undefined;
  if (format === 6) {
    const first = view.getUint16(at + 6);
    const entries = view.getUint16(at + 8);
    const index = char - first;
    return index >= 0 && index < entries && at + 10 + 2 * index + 2 <= view.byteLength ? view.getUint16(at + 10 + 2 * index) : undefined;
  }
  if (format !== 4) return undefined;
  const segments = view.getUint16(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + 2 * segments + 2;
  const deltas = starts + 2 * segments;
  const offsets = deltas + 2 * segments;
  if (offsets + 2 * segments > view.byteLength) return undefined;
  for (let i = 0; i < segments; i++) {
    if (char > view.getUint16(ends + 2 * i)) continue;
    const start = view.getUint16(starts + 2 * i);
    if (char < start) return undefined;
    const delta = view.getUint16(deltas + 2 * i);
    const rangeOffset = view.getUint16(offsets + 2 * i);
    if (rangeOffset === 0) return (char + delta) & 0xffff;
    const glyphAt = offsets + 2 * i + rangeOffset + 2 * (char - start);
    if (glyphAt + 2 > view.byteLength) return undefined;
    const glyph = view.getUint16(glyphAt);
    return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
  }
  return undefined;
}
