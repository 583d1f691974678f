// What the glyph readers answer (font-glyphs.ts for simple and Type 3
// fonts, composite-glyphs.ts for Type 0), and the font descriptor and CFF
// program lookups they share.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import type { PdfDict } from '../../untrusted/pdf-values.js';
import { readCff, type CffProgram } from './cff-program.js';

export interface GlyphFacts {
  /** undefined: the program was not read, or does not say. */
  readonly present: boolean | undefined;
  readonly programWidth: number | undefined;
  readonly dictionaryWidth: number | undefined;
  /** The glyph name the code selects, where the font names glyphs. */
  readonly name: string | undefined;
}

export interface FontGlyphs {
  /** "Type1C", "TrueType", "CIDFontType0C", "CIDFontType2", "Type3"; undefined when nothing is read. */
  readonly program: string | undefined;
  glyph(code: number): GlyphFacts;
  /** Names (name-keyed CFF) of every glyph in the program but .notdef: for CharSet. */
  readonly glyphNames: readonly string[] | undefined;
  /** CIDs of every glyph in the program: for CIDSet. */
  readonly cids: readonly number[] | undefined;
  /** A Type 0 font's CID for a code (Identity-H/V, or an embedded CMap's cidrange/cidchar). */
  readonly cidOf?: (code: number) => number | undefined;
}

/** A code of a Type 0 font cut short by the end of its string (a trailing byte of an Identity-H/V string): no CID, so no glyph. */
export const PARTIAL_CODE = -1;

export const NOTHING: GlyphFacts = { present: undefined, programWidth: undefined, dictionaryWidth: undefined, name: undefined };

export function descriptorOf(pdf: PdfObjects, font: PdfDict | undefined): PdfDict | undefined {
  return pdf.dict(font?.get('FontDescriptor'));
}

export function cffOf(pdf: PdfObjects, descriptor: PdfDict | undefined): CffProgram | undefined {
  const file = pdf.stream(descriptor?.get('FontFile3'));
  const subtype = file?.dict.name('Subtype');
  if (file === undefined || (subtype !== 'Type1C' && subtype !== 'CIDFontType0C')) return undefined;
  const bytes = file.decoded();
  return bytes === undefined ? undefined : readCff(bytes);
}
