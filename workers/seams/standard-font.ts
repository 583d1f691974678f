// The standard 14 fonts: not embedded, WinAnsi (or Symbol/ZapfDingbats)
// encoded, measured and encoded from per-character tables. Part of the PDF
// seam (pdf.ts).
import type { PDFFont } from '@cantoo/pdf-lib';
import type { Font } from './pdf.js';

/**
 * A standard font's metrics, built once per worker per font: the characters
 * it encodes, each one's advance (per point of size) and its hex code.
 *
 * Widths exclude kerning on purpose: pdf-lib's widthOfTextAtSize adds AFM
 * kerning pairs, but text drawn with Tj is not kerned, so its widths ran
 * short of what was drawn (right-aligned text overshot its box). Encoding
 * per character from a table also replaced pdf-lib's per-call glyph lookup
 * and hex formatting, ~15% of a table-heavy page.
 */
interface StandardMetrics {
  readonly characters: ReadonlySet<number>;
  readonly advance: ReadonlyMap<number, number>;
  /** Each character's byte as it goes inside a literal string: itself, or escaped. */
  readonly literal: ReadonlyMap<number, string>;
}

/**
 * A byte inside a PDF literal string (ISO 32000-1 section 7.3.4.2): printable
 * ASCII as itself, the three delimiters escaped with a backslash, anything
 * else as a three-digit octal escape. No byte a client sends can end the
 * string early or become an operator. Literal strings are half the size of
 * hex ones, which shortens the streams to build and to deflate.
 */
function literalByte(byte: number): string {
  if (byte === 0x28 || byte === 0x29 || byte === 0x5c) return `\\${String.fromCharCode(byte)}`;
  if (byte >= 0x20 && byte <= 0x7e) return String.fromCharCode(byte);
  return `\\${byte.toString(8).padStart(3, '0')}`;
}

const standardMetrics = new Map<string, StandardMetrics>();
export function metricsOf(name: string, native: PDFFont): StandardMetrics {
  let metrics = standardMetrics.get(name);
  if (metrics === undefined) {
    const characters = new Set(native.getCharacterSet());
    const advance = new Map<number, number>();
    const literal = new Map<number, string>();
    for (const codePoint of characters) {
      const char = String.fromCodePoint(codePoint);
      advance.set(codePoint, native.widthOfTextAtSize(char, 1));
      // A standard font's code is one byte: its hex is two digits.
      literal.set(codePoint, literalByte(Number.parseInt(native.encodeText(char).asString(), 16)));
    }
    metrics = { characters, advance, literal };
    standardMetrics.set(name, metrics);
  }
  return metrics;
}

export class StandardFont implements Font {
  readonly standard = true;

  constructor(
    readonly name: string,
    readonly key: string,
    readonly ascent: number,
    readonly descent: number,
    private readonly metrics: StandardMetrics,
  ) {}

  covers(codePoint: number): boolean {
    return this.metrics.characters.has(codePoint);
  }

  widthOf(text: string, size: number): number {
    const advance = this.metrics.advance;
    let width = 0;
    for (let i = 0; i < text.length; i++) width += advance.get(text.charCodeAt(i)) ?? 0;
    return width * size;
  }

  encode(text: string): string {
    const literal = this.metrics.literal;
    let out = '(';
    // Standard fonts encode single bytes from the BMP only; runs() never hands them anything else.
    for (let i = 0; i < text.length; i++) out += literal.get(text.charCodeAt(i)) ?? '';
    return `${out})`;
  }
}
