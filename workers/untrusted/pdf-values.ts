// PDF objects (ISO 32000-1 §7.3) as plain values of our own, for code that
// inspects a file rather than builds one: the analysis rules, the content
// stream lexer. The seam that reads a file (seams/pdf-objects.ts) converts
// the library's objects into these, so no library type reaches a rule and
// the library can change under it.

export class PdfName {
  /** The name without its slash, #xx escapes decoded: `Type`, `Helvetica-Bold`. */
  constructor(readonly name: string) {}
  toString(): string {
    return `/${this.name}`;
  }
}

export class PdfString {
  constructor(
    /** The string's bytes after escapes (and decryption) are undone. */
    readonly bytes: Uint8Array,
    /** Written as <hex> in the file rather than (literal). */
    readonly hex: boolean,
  ) {}

  /** As a text string (§7.9.2.2): UTF-16BE after a BOM, UTF-8 after its BOM (PDF 2.0), else PDFDocEncoding. */
  get text(): string {
    const b = this.bytes;
    if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return new TextDecoder('utf-8').decode(b.subarray(3));
    let out = '';
    for (const byte of b) out += String.fromCharCode(PDF_DOC_ENCODING_HIGH[byte - 0x80] ?? byte);
    return out;
  }
}

/** PDFDocEncoding differs from Latin-1 in 0x80-0xA0 (Annex D.2); undefined codes keep their Latin-1 value. */
const PDF_DOC_ENCODING_HIGH: readonly (number | undefined)[] = [
  0x2022, 0x2020, 0x2021, 0x2026, 0x2014, 0x2013, 0x0192, 0x2044, 0x2039, 0x203a, 0x2212, 0x2030, 0x201e, 0x201c, 0x201d, 0x2018,
  0x2019, 0x201a, 0x2122, 0xfb01, 0xfb02, 0x0141, 0x0152, 0x0160, 0x0178, 0x017d, 0x0131, 0x0142, 0x0153, 0x0161, 0x017e, undefined,
  0x20ac,
];

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
  toString(): string {
    return `${this.num} ${this.gen} R`;
  }
}

export class PdfDict {
  constructor(
    readonly entries: ReadonlyMap<string, PdfValue>,
    /** The indirect object this dictionary is, when it is one. */
    readonly ref?: PdfRef,
  ) {}

  /** The entry as written: a PdfRef stays a PdfRef (resolve it through the document). */
  get(key: string): PdfValue | undefined {
    return this.entries.get(key);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The entry when it is a name written directly: `/Type /Page` → 'Page'. */
  name(key: string): string | undefined {
    const value = this.entries.get(key);
    return value instanceof PdfName ? value.name : undefined;
  }
}

export class PdfStream {
  constructor(
    readonly dict: PdfDict,
    /** The stream's bytes as stored (still filtered; decrypted when the document was opened with its password). */
    readonly raw: Uint8Array,
    private readonly decode: () => Uint8Array | undefined,
  ) {}

  get ref(): PdfRef | undefined {
    return this.dict.ref;
  }

  private decodedBytes: Uint8Array | undefined | null = null;

  /** The bytes with every filter undone; undefined when a filter is one we do not decode (DCT, JPX, JBIG2, CCITT) or the data is damaged. */
  decoded(): Uint8Array | undefined {
    if (this.decodedBytes === null) this.decodedBytes = this.decode();
    return this.decodedBytes;
  }
}

/** `null` is PDF's null object; an array is a plain array. */
export type PdfValue = null | boolean | number | PdfName | PdfString | PdfRef | PdfDict | PdfStream | PdfValue[];

export function isName(value: PdfValue | undefined, name?: string): value is PdfName {
  return value instanceof PdfName && (name === undefined || value.name === name);
}
