// A custom (embedded, subset) font of one document, over pdf-lib's embedder
// and fontkit's layout: part of the PDF seam (pdf.ts).
import type { PDFFont } from '@cantoo/pdf-lib';
import { FontError, MEMO_MAX_TEXT, type ParsedFont, type Shaped } from './fonts-parse.js';
import { libraryText, type Font } from './pdf.js';

/**
 * Encodings per (document, text): a text's first encoding records its
 * glyphs in the document's subset. Bounded per font; texts longer than
 * MEMO_MAX_TEXT are not kept (a long word is drawn about once anyway).
 */
const ENCODED_CACHE_MAX = 20_000;

/** A custom (embedded, subset) font of one document. */
export class CustomFont implements Font {
  readonly standard = false;
  readonly #encoded = new Map<string, string>();
  /**
   * Each glyph this document's texts have drawn: its glyph id in the face →
   * its code in the content stream (4 hex digits of its glyph id in the
   * subset, which numbers glyphs in the order texts first draw them).
   * Encoding a text of glyphs already here is lookups; pdf-lib's encodeText
   * (a layout, a subset inclusion and a hex conversion per glyph, a hex
   * string object per text) runs only for a text with a glyph new to the
   * document, and records them. It was ~9% of a letter in registered fonts
   * (profiled for issue 14).
   */
  readonly #codes = new Map<number, string>();

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

  /** As pdf-lib's widthOfTextAtSize(text, size), from the face's memo of advances shared by documents. */
  widthOf(text: string, size: number): number {
    return this.#layOut(() => this.parsed.shape(text).advance * (1 / 1000)) * size;
  }

  encode(text: string): string {
    let hex = this.#encoded.get(text);
    if (hex === undefined) {
      hex = this.#layOut(() => this.#encode(text));
      if (text.length <= MEMO_MAX_TEXT) {
        if (this.#encoded.size >= ENCODED_CACHE_MAX) this.#encoded.clear();
        this.#encoded.set(text, hex);
      }
    }
    return hex;
  }

  #encode(text: string): string {
    const glyphs = this.parsed.shape(text).glyphs;
    const codes = this.#codes;
    let hex = '<';
    for (let i = 0; i < glyphs.length; i++) {
      const code = codes.get((glyphs[i] as { id: number }).id);
      if (code === undefined) return this.#encodeNew(text, glyphs);
      hex += code;
    }
    return `${hex}>`;
  }

  /** pdf-lib includes the new glyphs in the subset; its codes for every glyph of the text are remembered. */
  #encodeNew(text: string, glyphs: Shaped['glyphs']): string {
    const hex = this.native.encodeText(text).toString();
    // `<` + 4 hex digits per glyph + `>`: the same layout (memoized) gave the same glyphs.
    if (hex.length !== glyphs.length * 4 + 2) throw new Error(`pdf: ${glyphs.length} glyphs encoded as ${hex.length} characters`);
    for (let i = 0; i < glyphs.length; i++) this.#codes.set((glyphs[i] as { id: number }).id, hex.slice(1 + 4 * i, 5 + 4 * i));
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
