// fill-form's `flatten` called directly (no pool) on a form whose widgets
// have no appearance: an unsigned signature field and a field left for the
// viewer to draw. pdf-lib's PDFForm.flatten console.error'd a stack trace
// for each, which reached the server's output beside pino's JSON lines
// (README, Logs). Nothing may be printed, and the flattened page must still
// hold the filled value and pass qpdf --check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillForm } from '../workers/docops/fill-form.js';
import type { Outcome } from '../workers/protocol.js';
import { unsignedSignatureFormPdf } from './helpers/form-pdf.js';
import { pdfInfo, pdfToText, qpdfCheck } from './helpers/pdf-tools.js';

const encoder = new TextEncoder();

function call(body: unknown): Promise<Outcome> {
  const bytes = encoder.encode(JSON.stringify(body));
  return fillForm({ body: bytes.buffer as ArrayBuffer, length: bytes.byteLength, options: { maxPages: 100 } });
}

test('flatten with widgets that have no appearance: nothing printed; the value on the page, no form left, qpdf clean', async () => {
  const pdf = Buffer.from(await unsignedSignatureFormPdf()).toString('base64');
  const printed: unknown[][] = [];
  const original = { error: console.error, warn: console.warn, log: console.log };
  console.error = console.warn = console.log = (...args: unknown[]) => void printed.push(args);
  let outcome: Outcome;
  try {
    outcome = await call({ pdf, fields: { name: 'Hello flattened' }, flatten: true });
  } finally {
    Object.assign(console, original);
  }
  assert.deepEqual(printed.map((args) => String(args[0]).split('\n')[0]), []);
  assert.ok(outcome.ok, outcome.ok ? '' : `${outcome.code}: ${outcome.detail}`);
  const flat = new Uint8Array(outcome.value.body as ArrayBuffer);
  assert.match(await pdfToText(flat), /Hello flattened/);
  assert.equal((await pdfInfo(flat)).Form, 'none');
  await qpdfCheck(flat);
});
