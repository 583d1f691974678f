// The character codes each font shows, for the glyph-level font rules
// (ISO 19005-1 6.3.5/6.3.6, 19005-2 6.2.11.4.1/6.2.11.5/6.2.11.8): veraPDF
// checks a Glyph object per code a text-showing operator uses, so these
// rules look only at codes the content streams show, not at every glyph of
// a font. Fed by content-facts.ts's one pass over each stream: Tf selects the
// font from the stream's resources, Tr the rendering mode (3, invisible, is
// exempt from all but the .notdef rule), q/Q save and restore both.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfDict, PdfName, PdfString, type PdfValue } from '../../untrusted/pdf-values.js';
import { parseCMap, splitCodes } from '../cmap.js';
import { PARTIAL_CODE } from '../fonts/font-glyphs.js';

export interface ShownFont {
  readonly font: PdfDict;
  /** "font F1 on page 2": where it was first used. */
  readonly label: string;
  readonly page?: number;
  /** Codes shown in a rendering mode other than 3. */
  readonly rendered: Set<number>;
  /** Codes shown in any mode. */
  readonly shown: Set<number>;
}

/** Distinct codes kept per font: every CID of a CJK font fits, a hostile file stays bounded. */
const MAX_CODES_PER_FONT = 70_000;

export class ShownText {
  readonly fonts = new Map<PdfDict, ShownFont>();
  private readonly codeSpaces = new Map<PdfDict, readonly (readonly [number, number, number])[] | null>();
  private font: PdfDict | undefined;
  private mode = 0;
  private readonly saved: { font: PdfDict | undefined; mode: number }[] = [];
  private fontResources: PdfDict | undefined;
  private page: number | undefined;
  private where = '';

  constructor(private readonly pdf: PdfObjects) {}

  /** A new content stream: its fonts, its page; the text state starts afresh (a form's inherits, which this ignores). */
  begin(resources: PdfDict | undefined, page: number | undefined, label: string): void {
    this.fontResources = this.pdf.dict(resources?.get('Font'));
    this.page = page;
    this.where = label;
    this.font = undefined;
    this.mode = 0;
    this.saved.length = 0;
  }

  operation(operator: string, operands: readonly PdfValue[]): void {
    switch (operator) {
      case 'q':
        this.saved.push({ font: this.font, mode: this.mode });
        return;
      case 'Q': {
        const state = this.saved.pop();
        if (state !== undefined) ({ font: this.font, mode: this.mode } = state);
        return;
      }
      case 'Tf': {
        const name = operands[0];
        this.font = name instanceof PdfName ? this.pdf.dict(this.fontResources?.get(name.name)) : undefined;
        if (this.font !== undefined && !this.fonts.has(this.font)) {
          this.fonts.set(this.font, { font: this.font, label: `font ${(name as PdfName).name} in ${this.where}`, page: this.page, rendered: new Set(), shown: new Set() });
        }
        return;
      }
      case 'Tr':
        if (typeof operands[0] === 'number') this.mode = operands[0];
        return;
      case 'Tj':
      case "'":
        this.show(operands[0]);
        return;
      case '"':
        this.show(operands[2]);
        return;
      case 'TJ':
        if (Array.isArray(operands[0])) for (const item of operands[0]) this.show(item);
        return;
    }
  }

  private show(value: PdfValue | undefined): void {
    if (!(value instanceof PdfString) || this.font === undefined) return;
    const used = this.fonts.get(this.font)!;
    if (used.shown.size >= MAX_CODES_PER_FONT) return;
    for (const code of this.codes(this.font, value.bytes)) {
      used.shown.add(code);
      if (this.mode !== 3) used.rendered.add(code);
    }
  }

  /**
   * A simple font's codes are bytes; a Type 0 font's follow its CMap's
   * codespace (Identity-H/V and unknown CMaps: two bytes). A trailing byte
   * that makes no whole code of Identity-H/V is PARTIAL_CODE: no CID, so no
   * glyph (veraPDF corpus 6-2-11-4-1-t02-fail-e shows "(#) Tj" with one).
   */
  private codes(font: PdfDict, bytes: Uint8Array): Iterable<number> {
    if (font.name('Subtype') !== 'Type0') return bytes;
    const encoding = this.pdf.name(font.get('Encoding'));
    if (encoding === 'Identity-H' || encoding === 'Identity-V') {
      const codes: number[] = [];
      for (let i = 0; i + 1 < bytes.length; i += 2) codes.push((bytes[i]! << 8) | bytes[i + 1]!);
      if (bytes.length % 2 === 1) codes.push(PARTIAL_CODE);
      return codes;
    }
    let spaces = this.codeSpaces.get(font);
    if (spaces === undefined) {
      const stream = this.pdf.stream(font.get('Encoding'));
      const decoded = stream?.decoded();
      spaces = decoded === undefined ? null : parseCMap(decoded).codespaces;
      this.codeSpaces.set(font, spaces);
    }
    return splitCodes(bytes, spaces ?? [], 2);
  }
}
