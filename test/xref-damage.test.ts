// The check on a PDF's raw bytes that decides the reading routes' `notice`
// (workers/untrusted/pdf-xref-damage.ts), called directly: a startxref, a
// table or an entry that would send pdf.js and qpdf to rebuild the
// cross-reference table is damage; sound files, incremental updates and
// cross-reference streams are not. The routes' answers are in parse.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { crossReferenceDamage } from '../workers/untrusted/pdf-xref-damage.js';
import { rawPdf, withBrokenStartxref, withGarbageInXrefTable, withIncrementalUpdate, withShiftedXrefOffsets } from './helpers/raw-pdf.js';
import { qpdfCheck } from './helpers/pdf-tools.js';

const SOUND = rawPdf([{ content: 'BT /F1 12 Tf 72 720 Td (One) Tj ET' }, { content: 'BT /F1 12 Tf 72 720 Td (Two) Tj ET' }]);

test('sound files: a table, an incremental update over it, cross-reference streams, bytes before the header', async () => {
  assert.equal(crossReferenceDamage(SOUND), undefined);
  assert.equal(crossReferenceDamage(withIncrementalUpdate(SOUND, 4)), undefined);
  // The old section's entry for object 4 is wrong, but the update frees 4: pdf.js and qpdf never read it.
  assert.equal(crossReferenceDamage(withIncrementalUpdate(SOUND, 4, true)), undefined);
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([200, 200]).drawText('Streams', { x: 20, y: 100, font, size: 12 });
  const streams = await doc.save({ useObjectStreams: true });
  assert.match(Buffer.from(streams).toString('latin1'), /\/Type \/XRef/);
  assert.equal(crossReferenceDamage(streams), undefined);
  // Offsets count from %PDF- (pdf.js's checkHeader, annex H.3).
  assert.equal(crossReferenceDamage(new Uint8Array(Buffer.concat([Buffer.from('junk before the header\n'), SOUND]))), undefined);
});

test('damage: startxref nowhere, garbage in the table, every entry off its object, a /Prev nowhere', async () => {
  assert.match(crossReferenceDamage(withBrokenStartxref(SOUND)) ?? '', /startxref does not point at a cross-reference table or stream/);
  const garbage = withGarbageInXrefTable(SOUND);
  assert.match(crossReferenceDamage(garbage) ?? '', /cross-reference table at byte \d+ has fewer than the \d+ entries/);
  const shifted = withShiftedXrefOffsets(SOUND);
  assert.match(crossReferenceDamage(shifted) ?? '', /entry for object 1 gives byte \d+, where that object does not start/);
  // Not only a test's view: qpdf calls both damaged and rebuilds.
  for (const pdf of [garbage, shifted]) await assert.rejects(qpdfCheck(pdf), /file is damaged/);
  const updated = Buffer.from(withIncrementalUpdate(SOUND, 4)).toString('latin1').replace(/\/Prev \d+/, '/Prev 3');
  assert.match(crossReferenceDamage(new Uint8Array(Buffer.from(updated, 'latin1'))) ?? '', /section it links to at byte 3 does not point at a cross-reference/);
});

test('an entry for the wrong object or generation is damage (pdf.js fetchUncompressed checks both)', () => {
  const text = Buffer.from(SOUND).toString('latin1');
  const swapped = text.replace('3 0 obj', '9 0 obj');
  assert.match(crossReferenceDamage(new Uint8Array(Buffer.from(swapped, 'latin1'))) ?? '', /entry for object 3/);
  const generation = text.replace('4 0 obj', '4 1 obj');
  assert.match(crossReferenceDamage(new Uint8Array(Buffer.from(generation, 'latin1'))) ?? '', /entry for object 4/);
});
