// Object streams we pack ourselves (workers/seams/pdf-packed-streams.ts):
// every member is listed in the cross-reference stream as a compressed
// entry of its stream (ISO 32000-1 §7.5.8.3), readers resolve it (qpdf, and
// pdf-lib reading our own file back), and a save that cannot hold them
// fails instead of writing a file whose members are missing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PDFDict, PDFDocument, PDFName, PDFRef } from '@cantoo/pdf-lib';
import '../../workers/seams/pdf-writer-speed.js';
import { packObjects } from '../../workers/seams/pdf-packed-streams.js';
import { SyntaxBytes } from '../../workers/seams/pdf-syntax-bytes.js';
import { qpdfCheck, withFile } from '../helpers/pdf-tools.js';

const run = promisify(execFile);

/** A one-page document whose catalog names a chain of `count` packed dictionaries, each naming the next. */
async function withChain(count: number): Promise<{ doc: PDFDocument; first: number }> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const first = doc.context.largestObjectNumber + 1;
  const objects = new SyntaxBytes();
  for (let i = 0; i < count; i++) {
    objects.ascii('<</Index ').int(i);
    if (i + 1 < count) objects.ascii('/Next ').ref(first + i + 1);
    objects.ascii('>>\n').end();
  }
  packObjects(doc.context, first, objects);
  doc.catalog.set(PDFName.of('Chain'), PDFRef.of(first));
  return { doc, first };
}

/** qpdf's cross-reference table: object number -> "compressed; stream = s, index = i" or "uncompressed; ...". */
async function crossReference(pdf: Uint8Array): Promise<Map<number, string>> {
  const out = await withFile(pdf, async (path) => (await run('qpdf', ['--show-xref', path])).stdout);
  const entries = new Map<number, string>();
  for (const line of out.split('\n')) {
    const match = /^(\d+)\/0: (.*)$/.exec(line);
    if (match !== null) entries.set(Number(match[1]), match[2] as string);
  }
  return entries;
}

describe('packed object streams', () => {
  test('every member is a compressed entry of its stream, in order, and resolves', async () => {
    // 450 objects: three streams (200, 200, 50), members numbered before them.
    const { doc, first } = await withChain(450);
    const pdf = await doc.save({ useObjectStreams: true });
    assert.match(await qpdfCheck(pdf), /No syntax or stream encoding errors/);
    const xref = await crossReference(pdf);
    const streams = new Set<string>();
    for (let i = 0; i < 450; i++) {
      const entry = xref.get(first + i);
      const match = /^compressed; stream = (\d+), index = (\d+)$/.exec(entry ?? '');
      assert.ok(match, `object ${first + i}: ${entry}`);
      assert.equal(Number(match[2]), i % 200);
      streams.add(match[1] as string);
    }
    assert.equal(streams.size, 3);
    // qpdf reads the last member by its number.
    const last = await withFile(pdf, async (path) => (await run('qpdf', [`--show-object=${first + 449}`, path])).stdout);
    assert.equal(last.trim(), '<< /Index 449 >>');
  });

  test('pdf-lib reads our file back, and saves it again with every member', async () => {
    const { doc, first } = await withChain(250);
    const again = await PDFDocument.load(await doc.save({ useObjectStreams: true }));
    let object = again.context.lookup(again.catalog.get(PDFName.of('Chain')), PDFDict);
    for (let i = 0; i < 249; i++) object = again.context.lookup(object.get(PDFName.of('Next')), PDFDict);
    assert.equal(object.get(PDFName.of('Index'))?.toString(), '249');
    const resaved = await again.save({ useObjectStreams: true });
    assert.match(await qpdfCheck(resaved), /No syntax or stream encoding errors/);
    assert.equal((await crossReference(resaved)).get(first + 249)?.startsWith('compressed'), true);
  });

  test('a save without object streams refuses a document with packed ones', async () => {
    const { doc } = await withChain(3);
    await assert.rejects(doc.save({ useObjectStreams: false }), /packed object streams/);
  });

  test('numbers already taken are refused', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const objects = new SyntaxBytes();
    objects.ascii('<<>>\n').end();
    assert.throws(() => packObjects(doc.context, doc.context.largestObjectNumber, objects), /reuse numbers/);
  });
});
