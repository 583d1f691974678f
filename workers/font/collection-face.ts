// One face of a font collection (.ttc/.otc: OpenType spec, "Font
// collections": https://learn.microsoft.com/typography/opentype/spec/otff#font-collections)
// as a font file of its own, for what reads single fonts only: fontkit in
// the render engine, and so set_font and font registration. A collection's
// faces share tables (a CJK collection's glyph outlines are one 'CFF '
// table for all its faces); the face's copy holds every table it lists.
import { FontError, sfntKind, tableDirectory, viewOf } from '../untrusted/sfnt-directory.js';
import { faceCount } from './sfnt-faces.js';
import { writeSfnt, type SfntTable } from './sfnt-writer.js';

/** `face_index` names no face of the data. */
export class NoSuchFace extends Error {
  constructor(readonly faces: number) {
    super(faces === 1 ? 'must be 0: the font is not a collection' : `must be below ${faces}: the collection has ${faces} faces`);
    this.name = 'NoSuchFace';
  }
}

/**
 * Face `index` of `bytes` as a single font: the bytes themselves when they
 * are one font (index 0). Throws NoSuchFace past the faces there are, and
 * FontError when the data is no font or the face's directory does not hold.
 */
export function faceOf(bytes: Uint8Array, index: number): Uint8Array {
  const faces = faceCount(bytes);
  if (index >= faces) throw new NoSuchFace(faces);
  if (sfntKind(bytes) !== 'collection') return bytes;
  const view = viewOf(bytes);
  const at = view.getUint32(12 + 4 * index);
  const where = `face ${index} of the collection`;
  if (at + 12 > bytes.byteLength) throw new FontError(`${where} lies outside the data (a truncated file?)`);
  // Every record checked (inside the data, no tag twice) before one is copied.
  tableDirectory(bytes, at, where);
  const tables: SfntTable[] = [];
  for (let i = 0; i < view.getUint16(at + 4); i++) {
    const record = at + 12 + 16 * i;
    const offset = view.getUint32(record + 8);
    const length = view.getUint32(record + 12);
    if (length > 0) tables.push({ tag: view.getUint32(record), checksum: view.getUint32(record + 4), data: bytes.subarray(offset, offset + length) });
  }
  return writeSfnt(view.getUint32(at), tables);
}
