// A bare CFF font program (Adobe TN 5176) written byte by byte, for the
// PDF/A glyph rules' tests: name-keyed, glyphs named by standard strings,
// each glyph's charstring just its width and endchar (TN 5177: the width
// operand first, then nominalWidthX added; nominalWidthX is 0 here).

/** SIDs of a few standard strings (TN 5176 Appendix A). */
export const SID = { A: 34, B: 35, C: 36 } as const;

function index(items: readonly Buffer[]): Buffer {
  if (items.length === 0) return Buffer.from([0, 0]);
  const offsets = [1];
  for (const item of items) offsets.push(offsets.at(-1)! + item.length);
  const offSize = 2;
  const head = Buffer.alloc(3 + offsets.length * offSize);
  head.writeUInt16BE(items.length, 0);
  head[2] = offSize;
  offsets.forEach((offset, i) => head.writeUInt16BE(offset, 3 + i * offSize));
  return Buffer.concat([head, ...items]);
}

/** A 5-byte DICT integer (operator 29), so offsets can be fixed before they are known. */
function int32(value: number): Buffer {
  const out = Buffer.alloc(5);
  out[0] = 29;
  out.writeInt32BE(value, 1);
  return out;
}

/** A CFF whose glyphs after .notdef are these standard-string SIDs, with these widths (1/1000 em, FontMatrix default). */
export function cffProgram(glyphs: readonly { sid: number; width: number }[]): Uint8Array {
  const header = Buffer.from([1, 0, 4, 2]);
  const name = index([Buffer.from('Tiny')]);
  const strings = index([]);
  const globalSubrs = index([]);
  const charstring = (width: number) => Buffer.from([28, (width >> 8) & 0xff, width & 0xff, 14]);
  const charStrings = index([charstring(500), ...glyphs.map((g) => charstring(g.width))]);
  const charset = Buffer.alloc(1 + 2 * glyphs.length);
  glyphs.forEach((g, i) => charset.writeUInt16BE(g.sid, 1 + 2 * i));
  // defaultWidthX 0 (op 20), nominalWidthX 0 (op 21).
  const privateDict = Buffer.from([139, 20, 139, 21]);
  const topSize = 6 + 6 + 11;
  const topIndexSize = 2 + 1 + 2 * 2 + topSize;
  const charsetAt = header.length + name.length + topIndexSize + strings.length + globalSubrs.length;
  const charStringsAt = charsetAt + charset.length;
  const privateAt = charStringsAt + charStrings.length;
  const top = Buffer.concat([int32(charsetAt), Buffer.from([15]), int32(charStringsAt), Buffer.from([17]), int32(privateDict.length), int32(privateAt), Buffer.from([18])]);
  return new Uint8Array(Buffer.concat([header, name, index([top]), strings, globalSubrs, charset, charStrings, privateDict]));
}
