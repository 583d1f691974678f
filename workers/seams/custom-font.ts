// A custom (embedded, subset) font of one document, over pdf-lib's embedder
// and fontkit's layout: part of the PDF seam (pdf.ts).
import type { PDFFont } from '@cantoo/pdf-lib';
import { FontError, MEMO_MAX_TEXT, type ParsedFont } from './fonts-parse.js';
import { libraryText, type Font } from './pdf.js';

/**
 * Widths and encodings per (font, text), per document, because both run
 * fontkit's layout. Bounded per font; texts longer than MEMO_MAX_TEXT are
 * not kept (a long word is measured and drawn about once anyway).
 */
const WIDTH_CACHE_MAX = 20_000;

/** A custom (embedded, subset) font of one document. */
export class CustomFont implements Font {
  readonly standard = false;
  readonly #widths = new Map<string, number>();
  /** Per document: the first encoding of a text records its glyphs in this document's subset. */
  readonly #encoded = new Map<string, string>();

  constructor(
    readonly native: PDFFont,
    readonly parsed: ParsedFont,
    readonly name: string,
    readonly key: string,
    readonly ascent: number,
    readonly descent: number,
  ) {}

  covers(codePoint: number): boolean {
    return this.parsed.covers(codePoint);
  }

  widthOf(text: string, size: number): number {
    let perPoint = this.#widths.get(text);
    if (perPoint === undefined) {
      perPoint = this.#layOut(() => this.native.widthOfTextAtSize(text, 1));
      if (text.length <= MEMO_MAX_TEXT) {
        if (this.#widths.size >= WIDTH_CACHE_MAX) this.#widths.clear();
        this.#widths.set(text, perPoint);
      }
    }
    return perPoint * size;
  }

  encode(text: string): string {
    let hex = this.#encoded.get(text);
    if (hex === undefined) {
      hex = this.#layOut(() => this.native.encodeText(text).toString());
      if (text.length <= MEMO_MAX_TEXT) {
        if (this.#encoded.size >= WIDTH_CACHE_MAX) this.#encoded.clear();
        this.#encoded.set(text, hex);
      }
    }
    return hex;
  }

  /** fontkit reads some tables (GSUB, GPOS, glyph outlines) only for the texts that need them: a damaged one is the font's fault. */
  #layOut<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw new FontError(`the font "${this.name}" cannot lay out this text: its layout tables (glyph substitution or positioning) or an outline are damaged; try another build of the font`, libraryText(error));
    }
  }
}
