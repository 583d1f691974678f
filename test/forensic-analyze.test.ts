// POST /api/v1/forensic-analyze against a real server, on documents built
// for it: a document signed by the sign operation and then changed by an
// incremental update (the signature still verifies, the report says what
// changed after signing), a signed file with a byte of its signed range
// altered, text hidden in each of the five ways (and text that is not
// hidden, and an OCR layer, which must not be reported), an OpenAction
// running JavaScript, the same action moved into an object stream by qpdf
// (where a search of the file's bytes cannot see it), an embedded file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { appendTextUpdate, openActionScript, pageWithHiddenText, withAttachment } from './helpers/forensic-documents.js';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfToText, qpdfTransform } from './helpers/pdf-tools.js';
import { signedPdf } from './helpers/signed-pdf.js';
import { startTestServer } from './helpers/server.js';
import { makeIdentities, pdfsig } from './helpers/signing.js';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

interface Report {
  revisions: { revision: number; objects_added: number[]; objects_changed: number[]; signed_by: string[] }[];
  signatures: { field: string; signer: string; revision: number; covers_whole_file: boolean; digest_matches: boolean; signature_valid: boolean; modified_after_signing: boolean; changes_after_signing: { kind: string; pages?: number[] }[]; problem: string | null }[];
  active_content: { kind: string; trigger: string | null; location: string; in_object_stream: boolean; sample?: string }[];
  hidden_text: { page: number; kind: string; sample: string }[];
  findings: { code: string; severity: string; detail: string }[];
  risk: string;
  sha256: string;
  size: number;
}

async function contractPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 2; i++) doc.addPage().drawText(`Contract page ${i}`, { x: 72, y: 700, font, size: 20 });
  return doc.save({ useObjectStreams: false });
}

test('forensic-analyze', async (t) => {
  const identities = await makeIdentities();
  t.after(() => identities.dispose());
  const server = await startTestServer({ PLATEN_EDITION: 'enterprise' });
  t.after(() => server.close());
  const contract = await loadContract('render');
  const call = async (body: unknown, key: string = KEYS.enterprise): Promise<Response> => {
    const response = await fetch(`${server.base}/api/v1/forensic-analyze`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', '/api/v1/forensic-analyze', response.clone());
    return response;
  };
  const analyse = async (pdf: Uint8Array): Promise<Report> => {
    const response = await call({ pdf: b64(pdf) });
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Report }).data;
  };
  const sign = async (pdf: Uint8Array): Promise<Uint8Array> => {
    const rsa = identities.rsa;
    const response = await fetch(`${server.base}/api/v1/sign`, {
      method: 'POST',
      headers: { ...bearer(KEYS.enterprise), 'content-type': 'application/json' },
      body: JSON.stringify({ pdf: b64(pdf), field_name: 'Approval', certificate: { p12: b64(rsa.p12), password: rsa.password } }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    return new Uint8Array(await response.arrayBuffer());
  };
  const signed = await sign(await contractPdf());

  await t.test('a signed document as signed: the signature covers the whole file and verifies', async () => {
    const report = await analyse(signed);
    assert.equal(report.size, signed.length);
    assert.equal(report.revisions.length, 2, 'the original and the signature update');
    const [signature] = report.signatures;
    assert.ok(signature);
    assert.equal(signature.field, 'Approval');
    assert.equal(signature.signer, 'CN=Platen rsa test signer');
    assert.equal(signature.revision, 2);
    assert.equal(signature.covers_whole_file, true);
    assert.equal(signature.digest_matches, true);
    assert.equal(signature.signature_valid, true);
    assert.equal(signature.modified_after_signing, false);
    assert.deepEqual(report.revisions[1]?.signed_by, ['Approval']);
    assert.ok(!report.findings.some((finding) => finding.severity === 'high' || finding.severity === 'medium'), JSON.stringify(report.findings));
  });

  await t.test('text added in an incremental update after the signature: still valid, but modified after signing, on page 1', async () => {
    const changed = await appendTextUpdate(signed, 'Amount due: 1,000,000');
    // The setting the test needs: a relying party's tool still calls the signature valid, yet the page shows new text.
    assert.match((await pdfsig(changed))[0]?.validation ?? '', /Signature is Valid/);
    assert.match(await pdfToText(changed), /Amount due/);
    const report = await analyse(changed);
    assert.equal(report.revisions.length, 3);
    assert.ok((report.revisions[2]?.objects_added.length ?? 0) > 0 && (report.revisions[2]?.objects_changed.length ?? 0) > 0, 'the update adds a content stream and rewrites the page');
    const [signature] = report.signatures;
    assert.ok(signature);
    assert.equal(signature.digest_matches, true);
    assert.equal(signature.signature_valid, true);
    assert.equal(signature.revision, 2);
    assert.equal(signature.covers_whole_file, false);
    assert.equal(signature.modified_after_signing, true);
    assert.deepEqual(signature.changes_after_signing, [{ kind: 'page-content', pages: [1] }]);
    const finding = report.findings.find((one) => one.code === 'MODIFIED_AFTER_SIGNING');
    assert.equal(finding?.severity, 'high');
    assert.equal(report.risk, 'high');
  });

  await t.test('a byte changed inside the signed range: the digest no longer matches', async () => {
    const tampered = Buffer.from(signed);
    const text = tampered.toString('latin1');
    const at = text.indexOf('/CreationDate (D:2');
    assert.ok(at > 0);
    tampered.write('1', at + '/CreationDate (D:'.length, 'latin1');
    const report = await analyse(tampered);
    assert.equal(report.signatures[0]?.digest_matches, false);
    assert.equal(report.findings.find((one) => one.code === 'SIGNATURE_DIGEST_MISMATCH')?.severity, 'high');
  });

  await t.test('a usage-rights signature (/Perms /UR3): found and verified like a field signature; one whose /ByteRange does not leave out its /Contents is reported as not verifying', async () => {
    // Before, the first was found but the second (the veraPDF suite's 6-1-12-t01-pass-a has one) was left out of signatures[], where linearize counted it.
    const extended = await signedPdf(2, { usageRights: true });
    const [signature] = (await analyse(extended)).signatures;
    assert.ok(signature);
    assert.deepEqual(
      { field: signature.field, digest_matches: signature.digest_matches, signature_valid: signature.signature_valid, covers_whole_file: signature.covers_whole_file },
      { field: null, digest_matches: true, signature_valid: true, covers_whole_file: true },
    );
    // The same file with the range's first part ending 16 bytes before the /Contents: the gap is no longer the signature value.
    const text = extended.toString('latin1');
    const range = /\/ByteRange \[ 0 (\d+) /.exec(text);
    assert.ok(range !== null);
    const shifted = Buffer.from(text.replace(range[0], `/ByteRange [ 0 ${String(Number(range[1]) - 16).padStart(range[1]?.length ?? 0, '0')} `), 'latin1');
    const report = await analyse(shifted);
    assert.equal(report.signatures.length, 1);
    assert.equal(report.signatures[0]?.digest_matches, false);
    assert.match(report.signatures[0]?.problem ?? '', /does not leave out exactly its \/Contents/);
    assert.equal(report.findings.find((one) => one.code === 'SIGNATURE_DIGEST_MISMATCH')?.severity, 'high');
  });

  await t.test('hidden text of each kind is found; visible, ruled and framed text and an OCR layer are not reported as hidden', async () => {
    const pdf = await pageWithHiddenText(
      'Quarterly report',
      [
        'BT 1 1 1 rg /F1 12 Tf 72 600 Td (Ignore previous instructions) Tj ET',
        'q 3 Tr BT 0 0 0 rg /F1 12 Tf 72 560 Td (render mode three) Tj ET Q',
        'BT 0 0 0 rg /F1 12 Tf 72 500 Td (painted over) Tj ET 1 1 1 rg 60 490 200 30 re f',
        'BT 0 0 0 rg /F1 0.5 Tf 72 450 Td (half a point) Tj ET',
        'BT 0 0 0 rg /F1 12 Tf 900 450 Td (off the page) Tj ET',
        // Not hidden: white text on a dark box drawn first, and black text after a white box.
        '0 0 0.5 rg 60 300 300 30 re f BT 1 1 1 rg /F1 12 Tf 72 310 Td (white on navy) Tj ET',
        '1 1 1 rg 60 250 300 30 re f BT 0 0 0 rg /F1 12 Tf 72 260 Td (black on white box) Tj ET',
        // Not covered: table rules drawn after the text as one path of thin rectangles, and a frame (two nested outlines, even-odd).
        'BT 0 0 0 rg /F1 12 Tf 72 100 Td (ruled cell) Tj ET 0 0 0 rg 60 90 200 1 re 60 115 200 1 re 60 90 1 26 re 259 90 1 26 re f',
        'BT 0 0 0 rg /F1 12 Tf 72 60 Td (framed words) Tj ET 0 0 0 rg 60 50 200 30 re 61 51 198 28 re f*',
        // An OCR layer: an image, and invisible text over it.
        'q 300 0 0 60 60 150 cm BI /W 1 /H 1 /CS /G /BPC 8 ID A EI Q q 3 Tr BT /F1 12 Tf 72 170 Td (scanned words) Tj ET Q',
      ].join('\n'),
    );
    const report = await analyse(pdf);
    const kinds = Object.fromEntries(report.hidden_text.map((entry) => [entry.kind, entry.sample]));
    assert.deepEqual(kinds, {
      'background-colour': 'Ignore previous instructions',
      invisible: 'render mode three',
      covered: 'painted over',
      tiny: 'half a point',
      'outside-crop-box': 'off the page',
    });
    assert.ok(report.hidden_text.every((entry) => entry.page === 1));
    assert.ok(report.findings.some((one) => one.code === 'OCR_LAYER' && one.severity === 'info'));
    assert.equal(report.findings.filter((one) => one.code === 'HIDDEN_TEXT' && one.severity === 'high').length, 3);
    assert.equal(report.risk, 'high');
  });

  await t.test('an OpenAction with JavaScript, then the same action inside an object stream', async () => {
    const pdf = await openActionScript('app.alert("opened")');
    const plain = await analyse(pdf);
    assert.deepEqual(plain.active_content.map(({ kind, trigger, location, in_object_stream, sample }) => ({ kind, trigger, location, in_object_stream, sample })), [
      { kind: 'javascript', trigger: 'OpenAction', location: 'document', in_object_stream: false, sample: 'app.alert("opened")' },
    ]);
    assert.equal(plain.findings.find((one) => one.code === 'JAVASCRIPT')?.severity, 'high');

    const packed = await qpdfTransform(pdf, ['--object-streams=generate']);
    // What a keyword search (pdfid) sees: nothing.
    assert.equal(Buffer.from(packed).indexOf('/JavaScript'), -1);
    const report = await analyse(packed);
    assert.equal(report.active_content.length, 1);
    assert.equal(report.active_content[0]?.kind, 'javascript');
    assert.equal(report.active_content[0]?.in_object_stream, true);
    assert.equal(report.active_content[0]?.trigger, 'OpenAction');
    assert.match(report.findings.find((one) => one.code === 'JAVASCRIPT')?.detail ?? '', /object stream/);
  });

  await t.test('an embedded file', async () => {
    const report = await analyse(await withAttachment('payload.exe', new Uint8Array([0x4d, 0x5a, 0x90, 0x00])));
    const [file] = report.active_content;
    assert.equal(file?.kind, 'embedded-file');
    assert.equal(file?.sample, 'payload.exe');
    assert.equal(report.findings.find((one) => one.code === 'EMBEDDED_FILE')?.severity, 'medium');
    assert.equal(report.risk, 'medium');
  });

  await t.test('refusals: a pro key, bytes that are not a PDF, an encrypted PDF without its password', async () => {
    const pro = await call({ pdf: b64(signed) }, KEYS.pro);
    assert.equal(pro.status, 403);
    assert.equal((await readProblem(pro)).slug, 'capability-denied');
    const junk = await call({ pdf: b64(new TextEncoder().encode('not a pdf at all')) });
    assert.equal(junk.status, 422);
    assert.equal((await readProblem(junk)).slug, 'invalid-pdf-data');
    const locked = await qpdfTransform(await contractPdf(), ['--encrypt', 'user-pw', 'owner-pw', '256', '--']);
    const answer = await call({ pdf: b64(locked) });
    assert.equal(answer.status, 422);
    const problem = await readProblem(answer);
    assert.equal(problem.slug, 'pdf-password-required');
    assert.equal(problem.errors?.[0]?.field, 'password');
    const withPassword = await call({ pdf: b64(locked), password: 'user-pw' });
    assert.equal(withPassword.status, 200, await withPassword.clone().text());
    assert.ok(((await withPassword.json()) as { data: Report }).data.findings.some((one) => one.code === 'ENCRYPTED'));
  });
});
