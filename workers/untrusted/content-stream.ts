// A lexer for content streams (ISO 32000-1 §7.8.2): the operators a page
// draws with, each with its operands and where it sits in the stream, for
// the rules that read marked content, colours and text modes, and for code
// that rewrites a stream in place (the offsets). The bytes are a client's:
// nesting is bounded, a malformed token is skipped as a reader skips it, and
// the lexer never throws.
// Indirect references (`12 0 R`, §7.3.10) inside arrays and dictionaries are
// read as PdfRef: content streams hold none, but pdf-streams.ts reads object
// dictionaries with this lexer and must tell `/Length 12 0 R` from `/Length 12`.
import { PdfDict, PdfName, PdfRef, PdfString, type PdfValue } from './pdf-values.js';

export interface ContentOperation {
  /** `Tj`, `BDC`, `re`, ...; `BI` for an inline image. */
  readonly operator: string;
  readonly operands: readonly PdfValue[];
  /** Byte offset of the first operand (of the operator when it has none). */
  readonly start: number;
  /** Byte offset just past the operator (past `EI` for an inline image). */
  readonly end: number;
  /** An inline image's data (between `ID` and `EI`); its dictionary is operands[0]. */
  readonly inlineData?: Uint8Array;
}

/** Arrays and dictionaries nested deeper than this are cut there: no drawing needs it, a hostile stream could. */
const MAX_NESTING = 64;

export function* contentOperations(bytes: Uint8Array): Generator<ContentOperation> {
  const lexer = new Lexer(bytes);
  let operands: PdfValue[] = [];
  let start = -1;
  for (;;) {
    lexer.skipSpace();
    if (lexer.pos >= bytes.length) return;
    const at = lexer.pos;
    const token = lexer.value(0);
    if (token === undefined) continue;
    if (!(token instanceof Keyword)) {
      if (start < 0) start = at;
      operands.push(token);
      continue;
    }
    const opStart = start < 0 ? at : start;
    if (token.word === 'BI') {
      const image = lexer.inlineImage();
      yield { operator: 'BI', operands: [image.dict], start: opStart, end: lexer.pos, inlineData: image.data };
    } else {
      yield { operator: token.word, operands, start: opStart, end: lexer.pos };
    }
    operands = [];
    start = -1;
  }
}

/** A bare word that is not true/false/null: an operator, or `ID`/`EI`, or junk. */
class Keyword {
  constructor(readonly word: string) {}
}

/** Per byte: 1 white space, 2 delimiter, 0 regular. A table, not two Sets: the lexer asks for every byte (Set.has was 15% of reading stream dictionaries, pdf-streams.ts). */
const CLASS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[c] = 1;
for (const c of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) CLASS[c] = 2;

function isWhite(byte: number): boolean {
  return CLASS[byte] === 1;
}

function isRegular(byte: number): boolean {
  return CLASS[byte] === 0;
}

class Lexer {
  pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  skipSpace(): void {
    const b = this.bytes;
    while (this.pos < b.length) {
      if (isWhite(b[this.pos]!)) this.pos++;
      else if (b[this.pos] === 0x25) while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
      else return;
    }
  }

  /** The next object or keyword; undefined for a stray delimiter (consumed). */
  value(depth: number): PdfValue | Keyword | undefined {
    const b = this.bytes;
    const c = b[this.pos]!;
    if (c === 0x2f) return this.name();
    if (c === 0x28) return this.literalString();
    if (c === 0x3c && b[this.pos + 1] === 0x3c) return this.dictionary(depth);
    if (c === 0x3c) return this.hexString();
    if (c === 0x5b) return this.array(depth);
    if (!isRegular(c)) {
      this.pos++;
      return undefined;
    }
    const begin = this.pos;
    while (this.pos < b.length && isRegular(b[this.pos]!)) this.pos++;
    const word = latin1(b, begin, this.pos);
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) return Number(word);
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    return new Keyword(word);
  }

  private name(): PdfName {
    const b = this.bytes;
    const begin = ++this.pos;
    while (this.pos < b.length && isRegular(b[this.pos]!)) this.pos++;
    const raw = latin1(b, begin, this.pos);
    return new PdfName(raw.includes('#') ? raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : raw);
  }

  private literalString(): PdfString {
    const b = this.bytes;
    const out: number[] = [];
    let depth = 1;
    this.pos++;
    while (this.pos < b.length) {
      const c = b[this.pos++]!;
      if (c === 0x5c) {
        const next = b[this.pos++];
        if (next === undefined) break;
        const escaped = ESCAPES[next];
        if (escaped !== undefined) out.push(escaped);
        else if (next >= 0x30 && next <= 0x37) {
          let code = next - 0x30;
          for (let i = 0; i < 2 && b[this.pos]! >= 0x30 && b[this.pos]! <= 0x37; i++) code = code * 8 + (b[this.pos++]! - 0x30);
          out.push(code & 0xff);
        } else if (next === 0x0d) {
          if (b[this.pos] === 0x0a) this.pos++;
        } else if (next !== 0x0a) out.push(next);
        continue;
      }
      if (c === 0x28) depth++;
      if (c === 0x29 && --depth === 0) break;
      out.push(c);
    }
    return new PdfString(Uint8Array.from(out), false);
  }

  private hexString(): PdfString {
    const b = this.bytes;
    const digits: number[] = [];
    this.pos++;
    while (this.pos < b.length && b[this.pos] !== 0x3e) {
      const digit = hexValue(b[this.pos++]!);
      if (digit >= 0) digits.push(digit);
    }
    this.pos++;
    if (digits.length % 2 === 1) digits.push(0);
    const out = new Uint8Array(digits.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = digits[2 * i]! * 16 + digits[2 * i + 1]!;
    return new PdfString(out, true);
  }

  private array(depth: number): PdfValue[] {
    const items: PdfValue[] = [];
    this.pos++;
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.bytes.length) return items;
      if (this.bytes[this.pos] === 0x5d) {
        this.pos++;
        return items;
      }
      const item = depth < MAX_NESTING ? this.value(depth + 1) : this.skipOne();
      if (item !== undefined && !(item instanceof Keyword)) items.push(this.referenceFrom(item));
    }
  }

  private dictionary(depth: number): PdfDict {
    const entries = new Map<string, PdfValue>();
    this.pos += 2;
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.bytes.length) break;
      if (this.bytes[this.pos] === 0x3e && this.bytes[this.pos + 1] === 0x3e) {
        this.pos += 2;
        break;
      }
      const key = depth < MAX_NESTING ? this.value(depth + 1) : this.skipOne();
      if (!(key instanceof PdfName)) continue;
      this.skipSpace();
      const value = this.pos < this.bytes.length ? this.value(depth + 1) : undefined;
      if (value !== undefined && !(value instanceof Keyword)) entries.set(key.name, this.referenceFrom(value));
    }
    return new PdfDict(entries);
  }

  /** `value` and, when it is an object number followed by a generation and `R`, the reference they make; else `value` alone. */
  private referenceFrom(value: PdfValue): PdfValue {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return value;
    const b = this.bytes;
    const before = this.pos;
    this.skipSpace();
    const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
    if (isDigit(b[this.pos])) {
      const generation = this.value(MAX_NESTING);
      this.skipSpace();
      if (typeof generation === 'number' && Number.isInteger(generation) && b[this.pos] === 0x52 && (this.pos + 1 >= b.length || !isRegular(b[this.pos + 1]!))) {
        this.pos++;
        return new PdfRef(value, generation);
      }
    }
    this.pos = before;
    return value;
  }

  /** Past the nesting bound: consume one byte so the loop ends without recursing further. */
  private skipOne(): undefined {
    this.pos++;
    return undefined;
  }

  /**
   * After `BI`: the image's entries up to `ID`, then its data up to an `EI`
   * standing alone between whitespace (§8.9.7). The data is binary and may
   * hold "EI" itself; a reader finds the end the same way, so a stream that
   * defeats this defeats every viewer too.
   */
  inlineImage(): { dict: PdfDict; data: Uint8Array } {
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.bytes.length) return { dict: new PdfDict(entries), data: new Uint8Array(0) };
      const key = this.value(1);
      if (key instanceof Keyword && key.word === 'ID') break;
      if (!(key instanceof PdfName)) continue;
      this.skipSpace();
      const value = this.value(1);
      if (value !== undefined && !(value instanceof Keyword)) entries.set(key.name, value);
    }
    const b = this.bytes;
    const dataStart = this.pos + 1; // one whitespace byte after ID
    for (let i = dataStart; i + 1 < b.length; i++) {
      if (b[i] === 0x45 && b[i + 1] === 0x49 && isWhite(b[i - 1]!) && (i + 2 >= b.length || isWhite(b[i + 2]!))) {
        this.pos = i + 2;
        return { dict: new PdfDict(entries), data: b.subarray(dataStart, i - 1) };
      }
    }
    this.pos = b.length;
    return { dict: new PdfDict(entries), data: b.subarray(Math.min(dataStart, b.length)) };
  }
}

const ESCAPES: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

/** bytes[from..to) as Latin-1, without the view a subarray would allocate (the lexer makes one string per token). */
function latin1(bytes: Uint8Array, from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += String.fromCharCode(bytes[i] as number);
  return out;
}
