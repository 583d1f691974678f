// Streams copied into the saved file as one block: part of the PDF seam
// (pdf.ts). pdf-lib's PDFStream.copyBytesInto copies a stream's contents a
// byte at a time in a JavaScript loop; an embedded font program is tens of
// kilobytes (a tagged letter's three DejaVu subsets: ~24 KB deflated), so
// every document in embedded fonts paid a loop iteration per byte of them
// (~1.7% of a tagged letter's CPU, --cpu-prof, issue 15). The bytes
// written are the same: the dictionary, "\nstream\n", the contents,
// "\nendstream".
import { PDFStream } from '@cantoo/pdf-lib';

const STREAM = Buffer.from('\nstream\n', 'latin1');
const END_STREAM = Buffer.from('\nendstream', 'latin1');

interface StreamInternals {
  readonly dict: { copyBytesInto(buffer: Uint8Array, offset: number): number };
  updateDict(): void;
  getContents(): Uint8Array;
}

const prototype = PDFStream.prototype as unknown as { copyBytesInto(this: StreamInternals, buffer: Uint8Array, offset: number): number };
prototype.copyBytesInto = function (buffer, offset) {
  this.updateDict();
  const start = offset;
  offset += this.dict.copyBytesInto(buffer, offset);
  buffer.set(STREAM, offset);
  offset += STREAM.byteLength;
  const contents = this.getContents();
  buffer.set(contents, offset);
  offset += contents.length;
  buffer.set(END_STREAM, offset);
  offset += END_STREAM.byteLength;
  return offset - start;
};
