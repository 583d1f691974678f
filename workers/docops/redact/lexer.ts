// A content stream (ISO 32000-1 section 7.8.2) as a list of operations:
// each operator with its operands and the byte range it came from, so the
// redaction can copy every operation it leaves alone byte for byte and
// rewrite only the ones that drew something inside an area. Inline images
// (BI ... ID <binary> EI, section 8.9.7) are one operation whose binary
// data is skipped, never read as operators.

export type Operand =
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'string'; readonly bytes: Uint8Array }
  | { readonly kind: 'name'; readonly value: string }
  | { readonly kind: 'array'; readonly items: readonly Operand[] }
  /** A dictionary (BDC's property list, an inline image's parameters) or a keyword operand (true, null): kept as written. */
  | { readonly kind: 'other' };

export interface Operation {
  /** The operator (Tj, re, Do, ...); `BI` for a whole inline image. */
  readonly operator: string;
  readonly operands: readonly Operand[];
  /** Bytes of the operation (first operand to operator, or to EI for an inline image) in the stream. */
  readonly start: number;
  readonly end: number;
}

/** A stream nested deeper than this is not a content stream a producer wrote. */
const MAX_NESTING = 64;

const WHITESPACE = new Uint8Array(256);
for (const byte of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITESPACE[byte] = 1;
const DELIMITER = new Uint8Array(256);
for (const byte of '()<>[]{}/%') DELIMITER[byte.charCodeAt(0)] = 1;

const isRegular = (byte: number) => WHITESPACE[byte] === 0 && DELIMITER[byte] === 0;

export function lexContent(bytes: Uint8Array): Operation[] {
  return new Lexer(bytes).operations();
}

class Lexer {
  private at = 0;

  constructor(private readonly bytes: Uint8Array) {}

  operations(): Operation[] {
    const out: Operation[] = [];
    let operands: Operand[] = [];
    let start = -1;
    for (;;) {
      this.skipSpace();
      if (this.at >= this.bytes.length) return out;
      const tokenStart = this.at;
      if (start < 0) start = tokenStart;
      const byte = this.bytes[this.at] as number;
      if (isRegular(byte) && !this.numberAhead()) {
        const word = this.word();
        if (word === 'true' || word === 'false' || word === 'null') {
          operands.push({ kind: 'other' });
          continue;
        }
        if (word === 'BI') {
          this.skipInlineImage();
          out.push({ operator: 'BI', operands: [], start, end: this.at });
        } else {
          out.push({ operator: word, operands, start, end: this.at });
        }
        operands = [];
        start = -1;
        continue;
      }
      operands.push(this.operand(0));
    }
  }

  private numberAhead(): boolean {
    const byte = this.bytes[this.at] as number;
    return (byte >= 0x30 && byte <= 0x39) || byte === 0x2b || byte === 0x2d || byte === 0x2e;
  }

  private skipSpace(): void {
    const bytes = this.bytes;
    while (this.at < bytes.length) {
      const byte = bytes[this.at] as number;
      if (WHITESPACE[byte] === 1) {
        this.at++;
      } else if (byte === 0x25) {
        while (this.at < bytes.length && bytes[this.at] !== 0x0a && bytes[this.at] !== 0x0d) this.at++;
      } else {
        return;
      }
    }
  }

  private word(): string {
    const from = this.at;
    while (this.at < this.bytes.length && isRegular(this.bytes[this.at] as number)) this.at++;
    return String.fromCharCode(...this.bytes.subarray(from, Math.min(this.at, from + 64)));
  }

  private operand(depth: number): Operand {
    if (depth > MAX_NESTING) throw new ContentSyntaxError('arrays or dictionaries nested too deep');
    const bytes = this.bytes;
    const byte = bytes[this.at] as number;
    switch (byte) {
      case 0x28:
        return { kind: 'string', bytes: this.literal() };
      case 0x3c:
        if (bytes[this.at + 1] === 0x3c) {
          this.at += 2;
          this.until(0x3e, depth, true);
          return { kind: 'other' };
        }
        return { kind: 'string', bytes: this.hex() };
      case 0x5b: {
        this.at++;
        return { kind: 'array', items: this.until(0x5d, depth, false) };
      }
      case 0x2f: {
        this.at++;
        const name = this.word();
        return { kind: 'name', value: name.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) };
      }
      case 0x29:
      case 0x3e:
      case 0x5d:
      case 0x7b:
      case 0x7d:
        // A stray delimiter: skipped, as viewers do.
        this.at++;
        return { kind: 'other' };
      default: {
        const text = this.word();
        const value = Number(text);
        return Number.isFinite(value) ? { kind: 'number', value } : { kind: 'other' };
      }
    }
  }

  /** Operands up to `close` (`]`, or `>>` when `dictionary`). */
  private until(close: number, depth: number, dictionary: boolean): Operand[] {
    const items: Operand[] = [];
    for (;;) {
      this.skipSpace();
      if (this.at >= this.bytes.length) throw new ContentSyntaxError('an array or dictionary is not closed');
      const byte = this.bytes[this.at] as number;
      if (byte === close && (!dictionary || this.bytes[this.at + 1] === 0x3e)) {
        this.at += dictionary ? 2 : 1;
        return items;
      }
      if (isRegular(byte) && !this.numberAhead()) {
        this.word();
        items.push({ kind: 'other' });
        continue;
      }
      items.push(this.operand(depth + 1));
    }
  }

  private literal(): Uint8Array {
    const bytes = this.bytes;
    const out: number[] = [];
    let depth = 1;
    this.at++;
    while (this.at < bytes.length) {
      let byte = bytes[this.at++] as number;
      if (byte === 0x5c) {
        byte = bytes[this.at++] ?? 0;
        const escaped = ESCAPES[byte];
        if (escaped !== undefined) {
          out.push(escaped);
        } else if (byte >= 0x30 && byte <= 0x37) {
          let value = byte - 0x30;
          for (let i = 0; i < 2 && (bytes[this.at] ?? 0) >= 0x30 && (bytes[this.at] ?? 0) <= 0x37; i++) value = value * 8 + ((bytes[this.at++] as number) - 0x30);
          out.push(value & 0xff);
        } else if (byte === 0x0d) {
          if (bytes[this.at] === 0x0a) this.at++;
        } else if (byte !== 0x0a) {
          out.push(byte);
        }
        continue;
      }
      if (byte === 0x28) depth++;
      if (byte === 0x29 && --depth === 0) return Uint8Array.from(out);
      out.push(byte);
    }
    throw new ContentSyntaxError('a string is not closed');
  }

  private hex(): Uint8Array {
    const bytes = this.bytes;
    const digits: number[] = [];
    this.at++;
    while (this.at < bytes.length) {
      const byte = bytes[this.at++] as number;
      if (byte === 0x3e) {
        if (digits.length % 2 === 1) digits.push(0);
        const out = new Uint8Array(digits.length / 2);
        for (let i = 0; i < out.length; i++) out[i] = ((digits[2 * i] as number) << 4) | (digits[2 * i + 1] as number);
        return out;
      }
      const value = HEX_VALUE[byte] ?? -1;
      if (value >= 0) digits.push(value);
    }
    throw new ContentSyntaxError('a hex string is not closed');
  }

  /** From after BI: the parameters, ID, one whitespace byte, the data, then EI between whitespace (section 8.9.7). */
  private skipInlineImage(): void {
    const bytes = this.bytes;
    for (;;) {
      this.skipSpace();
      if (this.at >= bytes.length) throw new ContentSyntaxError('an inline image has no ID');
      if (isRegular(bytes[this.at] as number) && !this.numberAhead()) {
        if (this.word() === 'ID') break;
        continue;
      }
      this.operand(0);
    }
    this.at++;
    for (let i = this.at; i + 1 < bytes.length; i++) {
      if (bytes[i] === 0x45 && bytes[i + 1] === 0x49 && WHITESPACE[bytes[i - 1] as number] === 1 && (i + 2 >= bytes.length || !isRegular(bytes[i + 2] as number))) {
        this.at = i + 2;
        return;
      }
    }
    throw new ContentSyntaxError('an inline image has no EI');
  }
}

const ESCAPES: Readonly<Record<number, number>> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };

const HEX_VALUE = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) HEX_VALUE[0x30 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX_VALUE[0x41 + i] = 10 + i;
  HEX_VALUE[0x61 + i] = 10 + i;
}

/** A content stream the lexer cannot follow: the redaction refuses the document rather than guess what it draws. */
export class ContentSyntaxError extends Error {
  override readonly name = 'ContentSyntaxError';
}
