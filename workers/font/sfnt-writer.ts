// An sfnt font file written from its tables (OpenType spec, "Organization
// of an OpenType font": https://learn.microsoft.com/typography/opentype/spec/otff#organization-of-an-opentype-font):
// the offset table, one 16-byte record a table, then each table padded to
// four bytes. Used where a font arrives wrapped and leaves as plain
// TrueType/OpenType: a WOFF file's tables unpacked (web-fonts.ts), one face
// taken out of a collection (collection-face.ts).

export interface SfntTable {
  /** The four-byte tag as a big-endian number. */
  readonly tag: number;
  readonly checksum: number;
  readonly data: Uint8Array;
}

/** The file's size for tables of these lengths. */
export function sfntSize(lengths: readonly number[]): number {
  return lengths.reduce((total, length) => total + ((length + 3) & ~3), 12 + 16 * lengths.length);
}

/** `flavor`: the sfnt version (0x00010000 for TrueType outlines, 'OTTO' for CFF). Tables in the order given. */
export function writeSfnt(flavor: number, tables: readonly SfntTable[]): Uint8Array {
  const count = tables.length;
  const out = new Uint8Array(sfntSize(tables.map((table) => table.data.byteLength)));
  const sfnt = new DataView(out.buffer);
  sfnt.setUint32(0, flavor);
  sfnt.setUint16(4, count);
  const power = 2 ** Math.floor(Math.log2(count));
  sfnt.setUint16(6, power * 16); // searchRange
  sfnt.setUint16(8, Math.log2(power)); // entrySelector
  sfnt.setUint16(10, count * 16 - power * 16); // rangeShift
  let at = 12 + 16 * count;
  tables.forEach((table, i) => {
    out.set(table.data, at);
    const record = 12 + 16 * i;
    sfnt.setUint32(record, table.tag);
    sfnt.setUint32(record + 4, table.checksum);
    sfnt.setUint32(record + 8, at);
    sfnt.setUint32(record + 12, table.data.byteLength);
    at += (table.data.byteLength + 3) & ~3;
  });
  return out;
}
