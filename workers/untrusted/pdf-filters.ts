// PDF's standard filters other than Flate (ISO 32000-1 7.4.2, 7.4.3, 7.4.4,
// 7.4.5) as streaming decoders, for counting what a stream decodes to
// (decoded-bytes.ts chargeFilterChain) without holding it: each takes the
// encoded bytes a chunk at a time and hands back decoded chunks of at most
// CHUNK bytes, keeping only the state between chunks. pdf.js's and pdf-lib's
// own decoders (DecodeStream) keep every decoded byte in one growing buffer,
// so a stream counted with them would be held whole; Flate, where every
// bomb worth the name lives, is node:zlib's.
//
// LZW matters most here: its dictionary strings grow by a byte a code, so
// 12-bit codes can stand for ~4 KB each, about 2,700:1 once the table is
// full. RunLength reaches 64:1 (128 copies from 2 bytes), ASCII85 4:1 (`z`),
// ASCIIHex halves. The bytes are a client's: a character outside a filter's
// alphabet ends its data, as a missing end-of-data marker does, and nothing
// here throws.

/** A decoder: encoded bytes in, decoded chunks out (possibly none); `end` flushes what is left. */
export interface ChunkDecoder {
  push(chunk: Uint8Array): Uint8Array[];
  end(): Uint8Array[];
}

/** Decoded bytes handed back at a time: enough to keep the per-chunk cost low (each goes through a stream pipeline), small enough to hold. */
const CHUNK = 256 * 1024;

/** Collects decoded bytes into CHUNK-sized pieces. */
class Output {
  #buffer = new Uint8Array(CHUNK);
  #length = 0;
  #full: Uint8Array[] = [];

  byte(value: number): void {
    this.#buffer[this.#length++] = value;
    if (this.#length === CHUNK) this.#flush();
  }

  bytes(source: Uint8Array, from: number, to: number): void {
    for (let i = from; i < to; ) {
      const n = Math.min(to - i, CHUNK - this.#length);
      this.#buffer.set(source.subarray(i, i + n), this.#length);
      this.#length += n;
      i += n;
      if (this.#length === CHUNK) this.#flush();
    }
  }

  repeat(value: number, count: number): void {
    for (let left = count; left > 0; ) {
      const n = Math.min(left, CHUNK - this.#length);
      this.#buffer.fill(value, this.#length, this.#length + n);
      this.#length += n;
      left -= n;
      if (this.#length === CHUNK) this.#flush();
    }
  }

  take(final = false): Uint8Array[] {
    if (final && this.#length > 0) this.#full.push(this.#buffer.slice(0, this.#length));
    const chunks = this.#full;
    this.#full = [];
    return chunks;
  }

  #flush(): void {
    this.#full.push(this.#buffer);
    this.#buffer = new Uint8Array(CHUNK);
    this.#length = 0;
  }
}

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** ASCIIHexDecode (7.4.2): pairs of hex digits, white space ignored, `>` ends; an odd last digit is followed by 0. */
class AsciiHex implements ChunkDecoder {
  readonly #out = new Output();
  #high = -1;
  #done = false;

  push(chunk: Uint8Array): Uint8Array[] {
    for (let i = 0; i < chunk.length && !this.#done; i++) {
      const c = chunk[i] as number;
      if (isWhite(c)) continue;
      const digit = hexValue(c);
      if (digit < 0) {
        this.#done = true;
        break;
      }
      if (this.#high < 0) this.#high = digit;
      else {
        this.#out.byte(this.#high * 16 + digit);
        this.#high = -1;
      }
    }
    return this.#out.take();
  }

  end(): Uint8Array[] {
    if (this.#high >= 0) this.#out.byte(this.#high * 16);
    this.#high = -1;
    return this.#out.take(true);
  }
}

/** ASCII85Decode (7.4.3): groups of five characters `!`..`u` make four bytes, `z` four zeros, `~` ends. */
class Ascii85 implements ChunkDecoder {
  readonly #out = new Output();
  readonly #group = new Uint8Array(5);
  #count = 0;
  #done = false;

  push(chunk: Uint8Array): Uint8Array[] {
    for (let i = 0; i < chunk.length && !this.#done; i++) {
      const c = chunk[i] as number;
      if (isWhite(c)) continue;
      if (c === 0x7a && this.#count === 0) this.#out.repeat(0, 4);
      else if (c >= 0x21 && c <= 0x75) {
        this.#group[this.#count++] = c - 0x21;
        if (this.#count === 5) this.#emit(5);
      } else this.#done = true;
    }
    return this.#out.take();
  }

  end(): Uint8Array[] {
    // A final group of n characters makes n - 1 bytes (padded with `u`).
    if (this.#count > 1) this.#emit(this.#count);
    this.#count = 0;
    return this.#out.take(true);
  }

  #emit(count: number): void {
    let value = 0;
    for (let k = 0; k < 5; k++) value = value * 85 + (k < count ? (this.#group[k] as number) : 84);
    for (let k = 0; k < count - 1; k++) this.#out.byte(Math.floor(value / 256 ** (3 - k)) % 256);
    this.#count = 0;
  }
}

/** RunLengthDecode (7.4.5): a length byte 0-127 copies that many + 1 bytes, 129-255 repeats the next byte 257 - length times, 128 ends. */
class RunLength implements ChunkDecoder {
  readonly #out = new Output();
  /** Literal bytes still to copy; -1 when a repeat waits for its byte; 0 between runs. */
  #literal = 0;
  #repeat = 0;
  #done = false;

  push(chunk: Uint8Array): Uint8Array[] {
    let i = 0;
    while (i < chunk.length && !this.#done) {
      if (this.#literal > 0) {
        const n = Math.min(this.#literal, chunk.length - i);
        this.#out.bytes(chunk, i, i + n);
        this.#literal -= n;
        i += n;
      } else if (this.#repeat > 0) {
        this.#out.repeat(chunk[i++] as number, this.#repeat);
        this.#repeat = 0;
      } else {
        const length = chunk[i++] as number;
        if (length < 128) this.#literal = length + 1;
        else if (length > 128) this.#repeat = 257 - length;
        else this.#done = true;
      }
    }
    return this.#out.take();
  }

  end(): Uint8Array[] {
    return this.#out.take(true);
  }
}

/** Codes in an LZW table (12-bit codes); 256 clears it, 257 ends the data. */
const LZW_CODES = 4096;

/** LZWDecode (7.4.4.2), as pdf.js's LZWStream decodes it: codes of 9 to 12 bits, EarlyChange 1 by default. */
class Lzw implements ChunkDecoder {
  readonly #out = new Output();
  readonly #earlyChange: number;
  readonly #values = new Uint8Array(LZW_CODES);
  readonly #lengths = new Uint16Array(LZW_CODES);
  readonly #previous = new Uint16Array(LZW_CODES);
  /** The sequence the last code stood for. */
  readonly #sequence = new Uint8Array(LZW_CODES + 1);
  #sequenceLength = 0;
  #previousCode = 0;
  #nextCode = 258;
  #codeLength = 9;
  #bits = 0;
  #bitCount = 0;
  #done = false;

  constructor(earlyChange: number) {
    this.#earlyChange = earlyChange;
    for (let i = 0; i < 256; i++) {
      this.#values[i] = i;
      this.#lengths[i] = 1;
    }
  }

  push(chunk: Uint8Array): Uint8Array[] {
    for (let i = 0; i < chunk.length && !this.#done; i++) {
      this.#bits = ((this.#bits << 8) | (chunk[i] as number)) & 0xffffff;
      this.#bitCount += 8;
      while (this.#bitCount >= this.#codeLength && !this.#done) {
        this.#bitCount -= this.#codeLength;
        this.#code((this.#bits >>> this.#bitCount) & ((1 << this.#codeLength) - 1));
      }
    }
    return this.#out.take();
  }

  end(): Uint8Array[] {
    return this.#out.take(true);
  }

  #code(code: number): void {
    const hadSequence = this.#sequenceLength > 0;
    if (code < 256) {
      this.#sequence[0] = code;
      this.#sequenceLength = 1;
    } else if (code >= 258) {
      if (code < this.#nextCode) {
        let q = code;
        this.#sequenceLength = this.#lengths[code] as number;
        for (let j = this.#sequenceLength - 1; j >= 0; j--) {
          this.#sequence[j] = this.#values[q] as number;
          q = this.#previous[q] as number;
        }
      } else if (hadSequence && this.#sequenceLength < LZW_CODES) {
        // The code being defined (KwKwK): the previous sequence and its first byte.
        this.#sequence[this.#sequenceLength++] = this.#sequence[0] as number;
      }
    } else if (code === 256) {
      this.#codeLength = 9;
      this.#nextCode = 258;
      this.#sequenceLength = 0;
      return;
    } else {
      this.#done = true;
      return;
    }
    if (hadSequence && this.#nextCode < LZW_CODES) {
      this.#previous[this.#nextCode] = this.#previousCode;
      this.#lengths[this.#nextCode] = Math.min(LZW_CODES, (this.#lengths[this.#previousCode] as number) + 1);
      this.#values[this.#nextCode] = this.#sequence[0] as number;
      this.#nextCode++;
      const next = this.#nextCode + this.#earlyChange;
      if ((next & (next - 1)) === 0) this.#codeLength = Math.min(Math.log2(next) + 1, 12);
    }
    this.#previousCode = code;
    this.#out.bytes(this.#sequence, 0, this.#sequenceLength);
  }
}

/** Names a filter may be written with (ISO 32000-1 table 6, and the abbreviations of inline images, table 94, which readers accept anywhere). */
const DECODERS: Readonly<Record<string, (earlyChange: number) => ChunkDecoder>> = {
  ASCIIHexDecode: () => new AsciiHex(),
  AHx: () => new AsciiHex(),
  ASCII85Decode: () => new Ascii85(),
  A85: () => new Ascii85(),
  RunLengthDecode: () => new RunLength(),
  RL: () => new RunLength(),
  LZWDecode: (earlyChange) => new Lzw(earlyChange),
  LZW: (earlyChange) => new Lzw(earlyChange),
};

/** Whether `filter` is decoded here (decoded-bytes.ts): Flate with node:zlib, the others with these decoders. */
export function decodedHere(filter: string): boolean {
  return filter === 'FlateDecode' || filter === 'Fl' || Object.hasOwn(DECODERS, filter);
}

/** A streaming decoder for `filter`, or undefined when it is Flate (node:zlib's) or one not decoded here. */
export function chunkDecoder(filter: string, earlyChange = 1): ChunkDecoder | undefined {
  return DECODERS[filter]?.(earlyChange === 0 ? 0 : 1);
}
