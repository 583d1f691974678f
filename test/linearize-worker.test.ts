// The `linearize` task called directly, without a pool: 2,000 linearizations
// in a row on one thread (one qpdf-wasm instance used to trap after a few
// hundred calls; instances are now recycled), the glue's process.exitCode
// side effect undone, and the raw-byte scans the task relies on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { CALLS_PER_INSTANCE, instancesCreated, modulesCompiled } from '../workers/seams/qpdf.js';
import { linearize, type LinearizeResult } from '../workers/linearize/task.js';
import { countSignatures, hasPdfHeader, linearizedPageCount, looksTruncated, mentionsEncryption } from '../workers/untrusted/pdf-scan.js';
import { qpdfMessages, summarizeMessages } from '../workers/seams/qpdf-messages.js';
import type { Outcome } from '../workers/protocol.js';
import { withFile } from './helpers/pdf-tools.js';
import { signedPdf } from './helpers/signed-pdf.js';

const run = promisify(execFile);
const encoder = new TextEncoder();

async function smallPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++) doc.addPage([200, 200]).drawText(`Page ${i}`, { x: 20, y: 100, font, size: 12 });
  return doc.save();
}

function call(body: unknown): Promise<Outcome> {
  const bytes = encoder.encode(JSON.stringify(body));
  return linearize({ body: bytes.buffer as ArrayBuffer, length: bytes.byteLength, options: {} });
}

function dataOf(outcome: Outcome): LinearizeResult {
  assert.ok(outcome.ok, outcome.ok ? '' : `${outcome.code}: ${outcome.detail}`);
  return JSON.parse(new TextDecoder().decode(outcome.value.body)) as LinearizeResult;
}

test('2,000 linearizations in a row on one thread, recycling qpdf instances', async (t) => {
  const pdf = Buffer.from(await smallPdf(2)).toString('base64');
  const created = instancesCreated();
  const started = performance.now();
  let first: Buffer | undefined;
  let last: Buffer | undefined;
  const runs = 2000;
  for (let i = 0; i < runs; i++) {
    const data = dataOf(await call({ pdf_data: pdf }));
    assert.equal(data.page_count, 2);
    assert.equal(data.linearized, true);
    const out = Buffer.from(data.pdf_data, 'base64');
    if (first === undefined) first = out;
    else assert.equal(out.byteLength, first.byteLength, `run ${i} wrote ${out.byteLength} bytes, the first ${first.byteLength}`);
    last = out;
  }
  const seconds = (performance.now() - started) / 1000;
  const instances = instancesCreated() - created;
  t.diagnostic(`${runs} linearizations of a 2-page PDF in ${seconds.toFixed(1)} s (${((seconds * 1000) / runs).toFixed(2)} ms each), ${instances} qpdf instances`);
  // One qpdf call per linearization, CALLS_PER_INSTANCE calls per instance,
  // and no more: an instance that trapped would have been replaced early.
  assert.ok(instances >= Math.floor(runs / CALLS_PER_INSTANCE) && instances <= Math.ceil(runs / CALLS_PER_INSTANCE) + 1, `${instances} instances for ${runs} runs`);
  // Every instance instantiated the one module this thread compiled (a new compile each was half an instance's cost).
  assert.equal(modulesCompiled(), 1);
  for (const out of [first, last]) {
    assert.ok(out !== undefined);
    const { stdout } = await withFile(out, (path) => run('qpdf', ['--check-linearization', path]));
    assert.match(stdout, /no linearization errors/);
  }
});

test("qpdf's exit code does not leak into the process's", async () => {
  assert.equal(process.exitCode, undefined);
  const failed = await call({ pdf_data: Buffer.from('%PDF-1.7\nnothing else\n%%EOF\n').toString('base64') });
  assert.equal(failed.ok, false);
  assert.equal(process.exitCode, undefined, 'the Emscripten glue sets process.exitCode to qpdf exit status 2');
});

test('pdf-scan: header, encryption, signatures, truncation, linearization parameters', async () => {
  const bytes = (text: string) => Buffer.from(text, 'latin1');
  assert.equal(hasPdfHeader(bytes('%PDF-1.4\n')), true);
  assert.equal(hasPdfHeader(bytes(`${' '.repeat(1024)}%PDF-1.4`)), true);
  assert.equal(hasPdfHeader(bytes(`${' '.repeat(1025)}%PDF-1.4`)), false);
  assert.equal(hasPdfHeader(bytes('PDF-1.4')), false);

  assert.equal(mentionsEncryption(bytes('trailer << /Size 4 /Encrypt 5 0 R >>')), true);
  assert.equal(mentionsEncryption(bytes('<</Encrypt<</Filter/Standard>>>>')), true);
  assert.equal(mentionsEncryption(bytes('<< /EncryptMetadata false >>')), false);
  assert.equal(mentionsEncryption(bytes('<< /Size 4 >>')), false);

  assert.equal(countSignatures(bytes('<< /ByteRange [0 10 20 30] /Contents <00> >> << /ByteRange[ 0 1 2 3 ] >>')), 2);
  assert.equal(countSignatures(bytes('<< /ByteRange [ 0 /********** /********** /********** ] >>')), 0, 'a placeholder is not a signature');
  assert.equal(countSignatures(bytes('<< /ByteRanges [0 1 2 3] >>')), 0);
  assert.equal(countSignatures(await signedPdf(1)), 1);
  assert.equal(countSignatures(await smallPdf(1)), 0);

  assert.equal(looksTruncated(bytes('%PDF-1.4\n...\n%%EOF\n')), false);
  assert.equal(looksTruncated(bytes(`%PDF-1.4\n%%EOF\n${' '.repeat(1100)}`)), true);
  assert.equal(looksTruncated(bytes('%PDF-1.4\n1 0 obj')), true);

  assert.equal(linearizedPageCount(bytes('%PDF-1.7\n%\xbf\xf7\xa2\xfe\n7 0 obj\n<< /Linearized 1 /L 2558 /H [ 642 132 ] /O 11 /E 1460 /N 3 /T 2257 >>\nendobj\n')), 3);
  assert.equal(linearizedPageCount(bytes('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /N 3 >>\nendobj\n')), undefined);
});

test('qpdf-messages: errors first, without the file or program name, bounded', () => {
  const stderr = [
    'WARNING: /input.pdf: file is damaged',
    'WARNING: /input.pdf (object 6 0, offset 960): attempting to recover stream length',
    '/work/x/node_modules/piscina/dist/worker.js: /input.pdf (object 6 0, offset 1059): expected endstream',
    'qpdf: operation succeeded with warnings; resulting file may have some problems',
    `WARNING: /input.pdf: ${'x'.repeat(500)}`,
    '',
  ].join('\n');
  const messages = qpdfMessages(stderr, '/input.pdf');
  assert.deepEqual(messages.slice(0, 3), ['expected endstream (object 6 0, offset 1059)', 'file is damaged', 'attempting to recover stream length (object 6 0, offset 960)']);
  assert.equal(messages.length, 4);
  assert.ok((messages[3] as string).length <= 200);
  assert.equal(summarizeMessages(messages), 'expected endstream (object 6 0, offset 1059); file is damaged; attempting to recover stream length (object 6 0, offset 960) (and 1 more)');
  assert.equal(summarizeMessages([]), 'qpdf gave no reason');
});
