// The one reader of the OpenType container's outer structure (OpenType
// spec, "The OpenType font file": https://learn.microsoft.com/typography/opentype/spec/otff):
// what the first four bytes say the data is, and a table directory whose
// every table lies inside the data. Both font paths use it: the render
// engine's checks before fontkit (sfnt.ts) and the subsetter's before
// HarfBuzz (font/sfnt-faces.ts). Two copies of it had drifted (issue 9):
// one refused a directory listing a table twice, the other did not.

/** Font data a client sent cannot be used. Each task says what it becomes (422 INVALID_FONT, 400 invalid-font-data). */
export class FontError extends Error {
  constructor(
    message: string,
    /** What fontkit, pdf-lib or HarfBuzz said, for the server's log: `message` says what is wrong in our words. */
    override readonly cause?: string,
  ) {
    super(message);
    this.name = 'FontError';
  }
}

export interface Table {
  readonly offset: number;
  readonly length: number;
}

/** What the sfnt version (or signature) at the start of the data names. */
export type SfntKind = 'truetype' | 'cff' | 'woff' | 'woff2' | 'collection' | 'type1';

const KINDS = new Map<number, SfntKind>([
  [0x00010000, 'truetype'],
  [0x74727565, 'truetype'], // 'true': Apple's TrueType
  [0x4f54544f, 'cff'], // 'OTTO'
  [0x774f4646, 'woff'], // 'wOFF'
  [0x774f4632, 'woff2'], // 'wOF2'
  [0x74746366, 'collection'], // 'ttcf'
  [0x74797031, 'type1'], // 'typ1': PostScript Type 1 in an sfnt wrapper
]);

/** The kind of font data at `at`, or undefined when the data is no font container we know (or too short to say). */
export function sfntKind(bytes: Uint8Array, at = 0): SfntKind | undefined {
  if (at + 4 > bytes.byteLength) return undefined;
  return KINDS.get(viewOf(bytes).getUint32(at));
}

/**
 * The table directory of the face starting at `at`: tag to table, empty
 * tables left out (fontkit and HarfBuzz treat them as absent). Throws
 * FontError when the directory or a table runs past the data, or a tag is
 * listed twice (readers disagree on which copy counts). `where` names the
 * face in messages ("the font", "face 2 of the collection").
 */
export function tableDirectory(bytes: Uint8Array, at: number, where: string): Map<string, Table> {
  const view = viewOf(bytes);
  if (at + 12 > view.byteLength) throw new FontError(`the table directory of ${where} is empty or truncated`);
  const count = view.getUint16(at + 4);
  if (count === 0 || at + 12 + 16 * count > view.byteLength) throw new FontError(`the table directory of ${where} is empty or truncated`);
  const tables = new Map<string, Table>();
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const record = at + 12 + 16 * i;
    const tag = String.fromCharCode(view.getUint8(record), view.getUint8(record + 1), view.getUint8(record + 2), view.getUint8(record + 3));
    const offset = view.getUint32(record + 8);
    const length = view.getUint32(record + 12);
    if (offset + length > view.byteLength) throw new FontError(`the '${printable(tag)}' table of ${where} runs past the end of the data (a truncated file?)`);
    if (seen.has(tag)) throw new FontError(`${where} lists two '${printable(tag)}' tables`);
    seen.add(tag);
    if (length > 0) tables.set(tag, { offset, length });
  }
  return tables;
}

export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A tag as it may be shown: bytes outside printable ASCII as `?`. */
export function printable(tag: string): string {
  return tag.replace(/[^\x20-\x7e]/g, '?');
}
