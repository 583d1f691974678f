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
   * Encoding a text is lookups, and a glyph new to the document is put in
   * the subset as pdf-lib's encodeText puts it; encodeText itself (a
   * layout, a subset inclusion and a hex conversion per glyph, a hex
   * string object per text) was ~9% of a letter in registered fonts
   * (profiled for issue 14).
   */
  readonly #codes = new Map<number, string>();
  readonly #embedder: SubsetEmbedder | undefined;

  constructor(
    readonly native: PDFFont,
    readonly parsed: ParsedFont,
    readonly name: string,
    readonly key: string,
    readonly ascent: number,
    readonly descent: number,
  ) {
    this.#embedder = subsetEmbedderOf(native);
  }

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
    const embedder = this.#embedder;
    if (embedder === undefined) return this.native.encodeText(text).toString();
    const codes = this.#codes;
    let hex = '<';
    for (let i = 0; i < glyphs.length; i++) {
      const glyph = glyphs[i] as Glyph;
      hex += codes.get(glyph.id) ?? this.#include(embedder, glyph);
    }
    return `${hex}>`;
  }

  /** What pdf-lib's CustomFontSubsetEmbedder.encodeText does for each glyph, for a glyph new to the document. */
  #include(embedder: SubsetEmbedder, glyph: Glyph): string {
    const id = embedder.subset.includeGlyph(glyph);
    if (typeof id !== 'number') throw new Error('pdf: fontkit subset.includeGlyph() did not return a glyph id');
    embedder.glyphs[id - 1] = glyph;
    embedder.glyphIdMap.set(glyph.id, id);
    embedder.glyphCache.invalidate();
    // As pdf-lib writes it (toHexStringOfMinLength): upper case, at least 4 digits.
    const code = id.toString(16).toUpperCase().padStart(4, '0');
    this.#codes.set(glyph.id, code);
    return code;
  }

  /** Glyphs in this document's subset as the subsetter lists them (.notdef included); undefined without pdf-lib's subset embedder. */
  subsetGlyphCount(): number | undefined {
    const glyphs = (this.#embedder?.subset as { glyphs?: unknown } | undefined)?.glyphs;
    return Array.isArray(glyphs) ? glyphs.length : undefined;
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

type Glyph = Shaped['glyphs'][number];

/**
 * The parts of pdf-lib's CustomFontSubsetEmbedder that its encodeText
 * changes: the fontkit subset, the subset's glyphs (for the widths and the
 * ToUnicode CMap), the glyph id map and the cache of glyphs it invalidates.
 * Checked when a font is embedded: a pdf-lib whose embedder differs gets
 * its own encodeText called instead (slower, the same output).
 */
interface SubsetEmbedder {
  readonly subset: { includeGlyph(glyph: Glyph): number };
  readonly glyphs: Glyph[];
  readonly glyphIdMap: Map<number, number>;
  readonly glyphCache: { invalidate(): void };
}

function subsetEmbedderOf(native: PDFFont): SubsetEmbedder | undefined {
  const embedder = (native as unknown as { embedder?: Partial<Record<keyof SubsetEmbedder, unknown>> }).embedder;
  if (embedder === undefined || embedder === null) return undefined;
  const { subset, glyphs, glyphIdMap, glyphCache } = embedder;
  const fits =
    typeof (subset as { includeGlyph?: unknown } | undefined)?.includeGlyph === 'function' &&
    Array.isArray(glyphs) &&
    glyphIdMap instanceof Map &&
    typeof (glyphCache as { invalidate?: unknown } | undefined)?.invalidate === 'function';
  return fits ? (embedder as SubsetEmbedder) : undefined;
}
