// The revision walk over raw bytes (workers/analysis/forensic/revisions.ts)
// on files whose sections are known: a classic table plus an incremental
// update, the same document rewritten by qpdf with a cross-reference stream
// and object streams (PNG-predicted, as qpdf writes it), a linearized file
// (two %%EOF sections, one revision), bytes appended after %%EOF, and
// garbage where a section should be.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { scanRevisions } from '../../workers/analysis/forensic/revisions.js';
import { findSignatures, pdfDateIso } from '../../workers/analysis/forensic/signatures.js';
import { linearizedPageCount } from '../../workers/untrusted/pdf-scan.js';
import { appendTextUpdate } from '../helpers/forensic-documents.js';
import { qpdfTransform } from '../helpers/pdf-tools.js';
import { signedPdf } from '../helpers/signed-pdf.js';

async function threePages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 3; i++) doc.addPage().drawText(`Page ${i}`, { x: 72, y: 700, size: 14, font });
  return doc.save({ useObjectStreams: false });
}

test('a table and an incremental update: what the update added and rewrote', async () => {
  const original = await threePages();
  const updated = await appendTextUpdate(original, 'added later');
  const scan = scanRevisions(updated, false);
  assert.equal(scan.revisions.length, 2);
  const [first, second] = scan.revisions as [NonNullable<(typeof scan.revisions)[0]>, NonNullable<(typeof scan.revisions)[0]>];
  assert.equal(first.xref, 'table');
  assert.equal(first.start, 0);
  assert.ok(Math.abs(first.end - original.length) <= 1, `${first.end} vs ${original.length}`);
  assert.equal(second.end, updated.length);
  assert.deepEqual(first.changed, []);
  assert.ok(second.added.length >= 1, 'a content stream and a font');
  assert.ok(second.changed.length >= 1, 'the page');
  assert.ok(second.added.every((num) => !first.added.includes(num)));
  assert.ok(second.changed.every((num) => first.added.includes(num)));
  assert.equal(scan.trailingBytes, 0);
});

test('a cross-reference stream with object streams: compressed objects are known', async () => {
  const packed = await qpdfTransform(await threePages(), ['--object-streams=generate']);
  const scan = scanRevisions(packed, false);
  assert.equal(scan.revisions.length, 1);
  assert.equal(scan.revisions[0]?.xref, 'stream');
  assert.ok(scan.compressedObjects.size > 0);
  assert.ok((scan.revisions[0]?.objects.filter((object) => object.compressed).length ?? 0) === scan.compressedObjects.size);
  // Every object qpdf wrote is listed once: the pages, the fonts, the content streams.
  assert.ok((scan.revisions[0]?.objects.length ?? 0) >= 10);
});

test('a linearized file is one revision; an update after it is a second', async () => {
  const linear = await qpdfTransform(await threePages(), ['--linearize']);
  assert.notEqual(linearizedPageCount(linear), undefined);
  const scan = scanRevisions(linear, true);
  assert.equal(scan.revisions.length, 1);
  assert.equal(scan.revisions[0]?.end, linear.length);
  const updated = scanRevisions(await appendTextUpdate(linear, 'later'), true);
  assert.equal(updated.revisions.length, 2);
});

test('bytes after the last %%EOF are counted; a section that is not one is unreadable', async () => {
  const original = await threePages();
  const payload = Buffer.from('PK\x03\x04 a zip file rides along here', 'latin1');
  const appended = Buffer.concat([Buffer.from(original), payload]);
  assert.equal(scanRevisions(appended, false).trailingBytes, payload.length);
  // startxref pointing at offset 0 (zeros in place of the digits, so nothing else moves): the header, not a section.
  const broken = Buffer.from(original);
  const at = broken.lastIndexOf('startxref') + 'startxref\n'.length;
  const digits = /^\d+/.exec(broken.toString('latin1', at, at + 12))?.[0] ?? '';
  broken.write('0'.repeat(digits.length), at, 'latin1');
  assert.equal(scanRevisions(broken, false).revisions[0]?.xref, 'unreadable');
});

test('PDF dates as ISO 8601', () => {
  assert.equal(pdfDateIso("D:20261124201641+01'00'"), '2026-11-24T19:16:41.000Z');
  assert.equal(pdfDateIso('D:20261124'), '2026-11-24T00:00:00.000Z');
  assert.equal(pdfDateIso('yesterday'), null);
});

test('a file repeating one signature dictionary many times: each is found, at most 50 are checked', async () => {
  const signed = await signedPdf(1);
  assert.equal(findSignatures(signed).length, 1);
  const range = /\/ByteRange \[[^\]]+\]/.exec(signed.toString('latin1'))?.[0] ?? '';
  assert.notEqual(range, '');
  const padded = Buffer.concat([signed, Buffer.from(`%${range}\n`.repeat(80), 'latin1')]);
  assert.equal(findSignatures(padded).length, 50);
});
