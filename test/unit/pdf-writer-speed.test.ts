// The PDF seam's replacements of pdf-lib writer internals
// (workers/seams/pdf-writer-speed.ts) write what pdf-lib wrote: cross-reference
// entries kept in object-number order whatever the order they arrive in,
// each entry's fields big-endian in the widths /W gives (ISO 32000-1
// §7.5.8.3), and names with #xx escapes decoded as before.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFContext, PDFCrossRefStream, PDFName, PDFRef } from '@cantoo/pdf-lib';
import '../../workers/seams/pdf-writer-speed.js';

/** The parts of a cross-reference stream pdf-lib keeps private that the tests read. */
interface Internals {
  readonly entries: Array<{ ref: PDFRef }>;
  getUnencodedContents(): Uint8Array;
  updateDict(): void;
}

/** An empty one (PDFCrossRefStream.create would add object 0's free entry). */
function crossRef(): { stream: PDFCrossRefStream; internals: Internals } {
  const stream = PDFCrossRefStream.of(PDFContext.create().obj({}), [], false);
  return { stream, internals: stream as unknown as Internals };
}

describe('pdf-lib writer internals', () => {
  test('entries are kept in object-number order, in order or not', () => {
    const { stream, internals } = crossRef();
    for (const number of [3, 5, 9, 4, 1, 12]) stream.addUncompressedEntry(PDFRef.of(number), number * 10);
    assert.deepEqual(internals.entries.map((entry) => entry.ref.objectNumber), [1, 3, 4, 5, 9, 12]);
  });

  test('each entry is its type, its second and third fields, big-endian in the widest width of each', () => {
    const { stream, internals } = crossRef();
    stream.addDeletedEntry(PDFRef.of(0, 65535), 0);
    stream.addUncompressedEntry(PDFRef.of(1), 70_000);
    stream.addCompressedEntry(PDFRef.of(2), PDFRef.of(300), 7);
    stream.addUncompressedEntry(PDFRef.of(3), 15);
    internals.updateDict();
    // Widths: type 1 byte; second 3 bytes (70,000 = 0x011170); third 2 bytes (65,535).
    assert.equal(stream.dict.get(PDFName.of('W'))?.toString(), '[ 1 3 2 ]');
    assert.deepEqual([...internals.getUnencodedContents()], [
      0, 0x00, 0x00, 0x00, 0xff, 0xff,
      1, 0x01, 0x11, 0x70, 0x00, 0x00,
      2, 0x00, 0x01, 0x2c, 0x00, 0x07,
      1, 0x00, 0x00, 0x0f, 0x00, 0x00,
    ]);
  });

  test('the widths are those pdf-lib computes, in a stream the writer creates', () => {
    const context = PDFContext.create();
    const ours = PDFCrossRefStream.create(context.obj({}), false);
    // pdf-lib's own computation: a stream made with `of`, with the free entry `create` adds.
    const { stream: theirs } = crossRef();
    theirs.addDeletedEntry(PDFRef.of(0, 65535), 0);
    for (const stream of [ours, theirs]) {
      stream.addUncompressedEntry(PDFRef.of(1), 255);
      stream.addCompressedEntry(PDFRef.of(2), PDFRef.of(70_000), 256);
      stream.addUncompressedEntry(PDFRef.of(3, 2), 16_777_216);
      (stream as unknown as Internals).updateDict();
    }
    assert.equal(ours.dict.get(PDFName.of('W'))?.toString(), '[ 1 4 2 ]');
    assert.equal(ours.dict.get(PDFName.of('W'))?.toString(), theirs.dict.get(PDFName.of('W'))?.toString());
    assert.deepEqual([...(ours as unknown as Internals).getUnencodedContents()], [...(theirs as unknown as Internals).getUnencodedContents()]);
  });

  test('names decode #xx escapes as before, and the same name is the same instance', () => {
    assert.equal(PDFName.of('A#20B').asString(), '/A#20B');
    assert.equal(PDFName.of('A#20B').decodeText(), 'A B');
    assert.equal(PDFName.of('Type'), PDFName.of('Type'));
    assert.equal(PDFName.of('Type').asString(), '/Type');
  });
});
