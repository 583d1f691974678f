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
  /** The advances of code units below 256 by index (0 where the font has no such character): most text looks up nothing else. */
  readonly latinAdvance: Float64Array;
  /** Each character's byte as it goes inside a literal string: itself, or escaped. */
  readonly literal: ReadonlyMap<number, string>;
  /** 1 for the code units below 128 whose literal is the character itself (for Helvetica, printable ASCII but ( ) \\). */
  readonly plain: Uint8Array;
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
    const latinAdvance = new Float64Array(256);
    for (const [codePoint, width] of advance) if (codePoint < 256) latinAdvance[codePoint] = width;
    const plain = new Uint8Array(128);
    for (let code = 0; code < 128; code++) if (literal.get(code) === String.fromCharCode(code)) plain[code] = 1;
    metrics = { characters, advance, latinAdvance, literal, plain };
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
    // A character below 256 with an advance is there: no set lookup for most text (layout asks per character).
    if (codePoint < 256 && (this.metrics.latinAdvance[codePoint] as number) > 0) return true;
    return this.metrics.characters.has(codePoint);
  }

  widthOf(text: string, size: number): number {
    const { advance, latinAdvance } = this.metrics;
    let width = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      width += code < 256 ? (latinAdvance[code] as number) : (advance.get(code) ?? 0);
    }
    return width * size;
  }

  /**
   * Text whose every character is its own byte in the string (printable
   * ASCII but the three delimiters, in the WinAnsi fonts) is written as it
   * is: one scan and no string built per character (which was most of what
   * a table page allocated: a 60-character cell made 60 string objects each
   * time it was drawn).
   */
  encode(text: string): string {
    const plain = this.metrics.plain;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 128 || plain[code] === 0) return this.#encodeEscaped(text, i);
    }
    return `(${text})`;
  }

  /** The text from `from` on, character by character: escapes and WinAnsi codes. */
  #encodeEscaped(text: string, from: number): string {
    const literal = this.metrics.literal;
    let out = `(${text.slice(0, from)}`;
    // Standard fonts encode single bytes from the BMP only; runs() never hands them anything else.
    for (let i = from; i < text.length; i++) out += literal.get(text.charCodeAt(i)) ?? '';
    return `${out})`;
  }
}
