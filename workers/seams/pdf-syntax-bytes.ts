// PDF syntax written straight into bytes (part of the PDF seam), for objects
// made in bulk (a tagged file's structure: pdf-tagged.ts). Built as
// strings, a 10-page tagged invoice's ~1,250 elements and ParentTree arrays
// were ~70 KB of concatenated pieces, every piece a string (a template per
// element, a number turned to text per reference) to flatten and encode
// again before the deflate: ~1 ms of its render and a share of its
// garbage collection (process.cpuUsage around writeStructure and the
// packing, 200 renders). Here an object is bytes appended to one growing
// buffer, numbers written digit by digit, and the objects' ends recorded.

export class SyntaxBytes {
  #bytes: Uint8Array;
  #length = 0;
  /** Where each finished object ends (end(): the next begins there). */
  readonly ends: number[] = [];

  /**
   * Writes into `buffer` (grown by doubling into new ones as needed), or a
   * new one of `buffer` bytes: an allocation of 64 KB measured ~50 µs, and
   * the three doublings of the 10-page invoice's structure ~0.1 ms a
   * render (--cpu-prof), so its writer reuses one buffer (pdf-tagged.ts).
   */
  constructor(buffer: Uint8Array | number = 4096) {
    this.#bytes = typeof buffer === 'number' ? new Uint8Array(buffer) : buffer;
  }

  /** The buffer written into: the one given, or the last grown one. */
  get buffer(): Uint8Array {
    return this.#bytes;
  }

  get length(): number {
    return this.#length;
  }

  /** The bytes written so far (a view, valid until the next write). */
  get bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  /** `text` is ASCII (names, delimiters, hex strings): one byte per character. */
  ascii(text: string): this {
    this.#room(text.length);
    const bytes = this.#bytes;
    let at = this.#length;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.#length = at;
    return this;
  }

  /** A non-negative integer in decimal. */
  int(value: number): this {
    this.#room(16);
    const bytes = this.#bytes;
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    let at = this.#length + digits;
    this.#length = at;
    let rest = value;
    do {
      bytes[--at] = 48 + (rest % 10);
      rest = Math.floor(rest / 10);
    } while (rest > 0);
    return this;
  }

  /**
   * An indirect reference to object `number`, generation 0: `number 0 R`.
   * The suffix's bytes are set directly: a 10-page tagged invoice writes
   * ~4,000 references a render, and ref() went from 6.5% to 3.3% of a
   * --cpu-prof of writeStructure alone (its 1,250 elements, packing and
   * deflate included) without the loop over a string.
   */
  ref(number: number): this {
    this.int(number).#room(4);
    const bytes = this.#bytes;
    const at = this.#length;
    bytes[at] = 32; // ' '
    bytes[at + 1] = 48; // '0'
    bytes[at + 2] = 32;
    bytes[at + 3] = 82; // 'R'
    this.#length = at + 4;
    return this;
  }

  /** Ends the current object. */
  end(): void {
    this.ends.push(this.#length);
  }

  #room(more: number): void {
    if (this.#length + more <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + more));
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
  }
}
