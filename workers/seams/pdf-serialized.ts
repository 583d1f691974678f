// A PDF object written as bytes we serialized ourselves (part of the PDF
// seam): pdf-lib builds every object it writes as a tree of PDFDict,
// PDFName, PDFNumber and PDFArray instances, sizes it node by node and
// copies it a byte at a time. For objects made in bulk whose syntax is
// fixed (a font's widths array, a tagged file's structure elements) text
// built once is cheaper to make, to size and to copy: a 10-page tagged
// invoice's 1,200 structure elements cost ~1.2 ms of pdf-lib objects and
// their writing (--cpu-prof of the render task, issue 15). A structure of
// 50 objects or more now skips pdf-lib's per-object writing altogether
// (pdf-packed-streams.ts); smaller ones and files without object streams
// (PDF/A-1) still come here. The class
// extends PDFObject directly, not PDFInvalidObject or PDFDict, so pdf-lib's
// writer packs it into object streams like any dictionary.
import { PDFObject } from '@cantoo/pdf-lib';

export class SerializedObject extends PDFObject {
  /** `text` is PDF syntax in ASCII (strings in it hex-encoded): nothing beyond Latin-1 can reach the file. */
  constructor(readonly text: string) {
    super();
  }

  override clone(): SerializedObject {
    return new SerializedObject(this.text);
  }

  override toString(): string {
    return this.text;
  }

  override sizeInBytes(): number {
    return this.text.length;
  }

  /** Character by character: the objects are small, and a Buffer made for each cost more than the copy (--cpu-prof). */
  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    const text = this.text;
    for (let i = 0; i < text.length; i++) buffer[offset + i] = text.charCodeAt(i);
    return text.length;
  }
}
