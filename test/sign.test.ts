// POST /api/v1/sign against a real server: PAdES B-B signatures checked the
// way a relying party checks them (pdfsig: valid, ETSI.CAdES.detached;
// `openssl cms -verify -binary` over the ByteRange bytes), the CMS's signed
// attributes read with PKI.js (content-type, message-digest, ESS
// signing-certificate-v2 with the certificate's SHA-256, no signing-time),
// two signatures in a row both valid (incremental update), a changed byte
// detected, and the refusals (no identity, DocMDP P=1, bad PKCS#12).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { PDFArray, PDFDict, PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { assertInvalidPdf, readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfFonts, pdfToText, qpdfCheck } from './helpers/pdf-tools.js';
import { darkPixels } from './helpers/raster.js';
import { startTestServer } from './helpers/server.js';
import { signedPdf } from './helpers/signed-pdf.js';
import { withBrokenStartxref } from './helpers/raw-pdf.js';
import { embeddedSignatures, makeIdentities, opensslVerify, pdfsig } from './helpers/signing.js';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

async function plainPdf(certifiedNoChanges = false): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 2; i++) doc.addPage().drawText(`Contract page ${i}`, { x: 72, y: 700, font, size: 20 });
  if (certifiedNoChanges) {
    // The structure a certification signature leaves: /Perms /DocMDP -> a signature dictionary whose
    // DocMDP transform says P 1 (ISO 32000-2 section 12.8.2.2).
    const context = doc.context;
    const reference = context.obj({ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: { Type: 'TransformParams', P: 1, V: '1.2' } });
    const signature = context.register(context.obj({ Type: 'Sig', Filter: 'Adobe.PPKLite', SubFilter: 'ETSI.CAdES.detached', Reference: [reference] }));
    doc.catalog.set(PDFName.of('Perms'), context.obj({ DocMDP: signature }));
  }
  return doc.save({ useObjectStreams: false });
}

const ID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const ID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const ID_SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';

/** The signer's signed attributes: their types in order, and the ESSCertIDv2 certHash. */
function signedAttributes(cms: Buffer): { types: string[]; certHash: Buffer; digestAlgorithm: string } {
  const contentInfo = pkijs.ContentInfo.fromBER(Uint8Array.from(cms).buffer);
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  const signer = signedData.signerInfos[0] as pkijs.SignerInfo;
  const attributes = signer.signedAttrs?.attributes ?? [];
  const v2 = attributes.find((attribute) => attribute.type === ID_SIGNING_CERTIFICATE_V2)?.values[0] as asn1js.Sequence;
  const certs = v2.valueBlock.value[0] as asn1js.Sequence;
  const essCertId = certs.valueBlock.value[0] as asn1js.Sequence;
  const certHash = essCertId.valueBlock.value[0] as asn1js.OctetString;
  return { types: attributes.map((attribute) => attribute.type), certHash: Buffer.from(certHash.valueBlock.valueHexView), digestAlgorithm: signer.digestAlgorithm.algorithmId };
}

test('sign: PAdES baseline B-B', async (t) => {
  const identities = await makeIdentities();
  t.after(() => identities.dispose());
  const server = await startTestServer({ PLATEN_EDITION: 'enterprise', PLATEN_SIGNING_P12_FILE: identities.ec.p12File, PLATEN_SIGNING_P12_PASSWORD: identities.ec.password });
  t.after(() => server.close());
  const bare = await startTestServer({ PLATEN_EDITION: 'enterprise' });
  t.after(() => bare.close());
  const contract = await loadContract('render');
  const call = async (body: unknown, base = server.base, key: string = KEYS.pro): Promise<Response> => {
    const response = await fetch(`${base}/api/v1/sign`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', '/api/v1/sign', response.clone());
    return response;
  };
  const pdfOf = async (response: Response): Promise<Uint8Array> => {
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    const pdf = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(pdf);
    return pdf;
  };
  const source = await plainPdf();
  const rsa = identities.rsa;

  await t.test('an RSA identity from the request: valid for pdfsig and openssl, B-B attributes, SHA-256', async () => {
    const pdf = await pdfOf(await call({ pdf: b64(source), reason: 'Approved', location: 'Zürich', certificate: { p12: b64(rsa.p12), password: rsa.password } }));
    // The original bytes come first, unchanged: an incremental update.
    assert.deepEqual(Buffer.from(pdf.subarray(0, source.length)), Buffer.from(source));
    assert.deepEqual(await pdfsig(pdf), [{ validation: 'Signature is Valid.', type: 'ETSI.CAdES.detached' }]);
    const [signature] = embeddedSignatures(pdf);
    assert.ok(signature);
    await opensslVerify(signature, rsa.certificatePem);
    const attributes = signedAttributes(signature.cms);
    assert.deepEqual(attributes.types, [ID_CONTENT_TYPE, ID_MESSAGE_DIGEST, ID_SIGNING_CERTIFICATE_V2]);
    assert.equal(attributes.digestAlgorithm, '2.16.840.1.101.3.4.2.1');
    assert.deepEqual(attributes.certHash, createHash('sha256').update(rsa.certificateDer).digest());
    assert.match(await pdfToText(pdf), /Contract page 2/);
  });

  await t.test("the deployment's ECDSA identity, then an RSA signature on top: two valid signatures", async () => {
    const once = await pdfOf(await call({ pdf: b64(source), field_name: 'Approval' }));
    const [first] = embeddedSignatures(once);
    assert.ok(first);
    await opensslVerify(first, identities.ec.certificatePem);
    assert.deepEqual(signedAttributes(first.cms).certHash, createHash('sha256').update(identities.ec.certificateDer).digest());
    const twice = await pdfOf(await call({ pdf: b64(once), certificate: { p12: b64(rsa.p12), password: rsa.password } }));
    assert.deepEqual(Buffer.from(twice.subarray(0, once.length)), Buffer.from(once));
    assert.deepEqual((await pdfsig(twice)).map((signature) => signature.validation), ['Signature is Valid.', 'Signature is Valid.']);
    const both = embeddedSignatures(twice);
    assert.equal(both.length, 2);
    await opensslVerify(both[0] as (typeof both)[0], identities.ec.certificatePem);
    await opensslVerify(both[1] as (typeof both)[0], rsa.certificatePem);
  });

  await t.test("a document another tool signed (adbe.pkcs7.detached) keeps its signature valid beside ours", async () => {
    const foreign = await signedPdf(2);
    const pdf = await pdfOf(await call({ pdf: b64(foreign) }));
    assert.deepEqual(await pdfsig(pdf), [
      { validation: 'Signature is Valid.', type: 'adbe.pkcs7.detached' },
      { validation: 'Signature is Valid.', type: 'ETSI.CAdES.detached' },
    ]);
  });

  await t.test('a byte changed inside the signed range makes the signature invalid', async () => {
    const pdf = Buffer.from(await pdfOf(await call({ pdf: b64(source) })));
    // Byte 10 is in the binary comment after the header: covered by the range, and the file still parses.
    pdf[10] = (pdf[10] as number) ^ 0x01;
    assert.deepEqual(await pdfsig(pdf), [{ validation: 'Digest Mismatch.', type: 'ETSI.CAdES.detached' }]);
  });

  await t.test('no identity configured and none given: 422 signing-identity-missing', async () => {
    const response = await call({ pdf: b64(source) }, bare.base);
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'signing-identity-missing');
    assert.equal(problem.errors?.[0]?.field, 'certificate');
  });

  await t.test('a truncated or damaged PDF: 422 invalid-pdf-data, not signed', async () => {
    // Before, pdf-lib read what it could and the update was appended to the broken file: 200, a signed file no reader opens without a repair.
    const whole = Buffer.from(source);
    const cases: Array<[Uint8Array, RegExp]> = [
      [whole.subarray(0, Math.floor(whole.length / 2)), /^pdf is truncated: it does not end with %%EOF/],
      [withBrokenStartxref(source), /^pdf is damaged: .*repair it yourself/],
    ];
    for (const [input, detail] of cases) await assertInvalidPdf(await call({ pdf: b64(input) }), detail);
  });

  await t.test('a document with a usage-rights signature (/Perms /UR3) is signed; the usage-rights signature is left as it was and still verifies', async () => {
    const extended = await signedPdf(2, { usageRights: true });
    const pdf = await pdfOf(await call({ pdf: b64(extended) }));
    assert.deepEqual(Buffer.from(pdf.subarray(0, extended.length)), extended, 'an incremental update: the usage-rights signature covers the same bytes');
    assert.deepEqual(await pdfsig(pdf), [{ validation: 'Signature is Valid.', type: 'ETSI.CAdES.detached' }]);
    // pdfsig lists field signatures only; the usage-rights one, read from the bytes, covers what it covered before.
    const [usageRights] = embeddedSignatures(extended);
    assert.ok(usageRights !== undefined);
    const kept = embeddedSignatures(pdf).find((found) => found.cms.equals(usageRights.cms));
    assert.ok(kept !== undefined && kept.signed.equals(usageRights.signed));
  });

  await t.test('a document certified with DocMDP P=1: 422 document-certified', async () => {
    const response = await call({ pdf: b64(await plainPdf(true)) });
    assert.equal(response.status, 422);
    assert.equal((await readProblem(response)).slug, 'document-certified');
  });

  await t.test('a wrong PKCS#12 password, a field name already taken, a core key', async () => {
    const wrong = await call({ pdf: b64(source), certificate: { p12: b64(rsa.p12), password: 'nope' } });
    assert.equal(wrong.status, 422);
    const problem = await readProblem(wrong);
    assert.equal(problem.errors?.[0]?.field, 'certificate.p12');
    assert.equal(problem.errors?.[0]?.code, 'INVALID_CERTIFICATE');
    const once = await pdfOf(await call({ pdf: b64(source), field_name: 'Approval' }));
    const taken = await call({ pdf: b64(once), field_name: 'Approval' });
    assert.equal(taken.status, 422);
    assert.equal((await readProblem(taken)).errors?.[0]?.code, 'DUPLICATE');
    assert.equal((await call({ pdf: b64(source) }, server.base, KEYS.core)).status, 403);
  });

  await t.test('appearance: a visible box on the page asked for, painted by poppler, the signature valid', async () => {
    const box = { page: 2, x: 300, y: 600, width: 240, height: 72 };
    // pdf-lib's default page, A4: 595.28 x 841.89 points.
    const pageHeight = (await PDFDocument.load(source)).getPage(1).getHeight();
    const bottom = Math.round((pageHeight - box.y - box.height) * 100) / 100;
    const inside = { x: box.x + 6, y: bottom + 6, width: box.width - 12, height: box.height - 12 };
    assert.equal(await darkPixels(source, inside, pageHeight, 2), 0);
    const pdf = await pdfOf(await call({ pdf: b64(source), reason: 'Approved', location: 'Zürich', appearance: { ...box, text: 'Σύμβαση 2026-001' } }));
    assert.deepEqual((await pdfsig(pdf)).map((s) => [s.validation, s.type]), [['Signature is Valid.', 'ETSI.CAdES.detached']]);
    // The widget is on page 2 at the box, in PDF space (origin bottom-left): y from 841.89 - 600 - 72.
    const doc = await PDFDocument.load(pdf);
    const widgets = doc.getPage(1).node.Annots()?.asArray().map((ref) => doc.context.lookup(ref, PDFDict)) ?? [];
    const widget = widgets.find((annot) => annot.get(PDFName.of('FT'))?.toString() === '/Sig');
    assert.ok(widget !== undefined, 'a signature widget on page 2');
    assert.deepEqual(widget.lookup(PDFName.of('Rect'), PDFArray).asArray().map(String), ['300', String(bottom), '540', String(Math.round((bottom + 72) * 100) / 100)]);
    assert.ok(widget.lookup(PDFName.of('AP'), PDFDict).get(PDFName.of('N')) !== undefined, 'a normal appearance');
    // The Greek line needs DejaVu Sans, embedded as a subset; poppler paints the lines inside the frame.
    assert.ok((await pdfFonts(pdf)).some((font) => font.name.includes('DejaVuSans') && font.embedded && font.subset));
    assert.ok((await darkPixels(pdf, inside, pageHeight, 2)) > 200);
  });

  await t.test('appearance: a page past the end, a box past the page edge, a box too small', async () => {
    const errorOf = async (appearance: unknown): Promise<[string | undefined, string | undefined]> => {
      const response = await call({ pdf: b64(source), appearance });
      assert.equal(response.status, 422);
      const problem = await readProblem(response);
      return [problem.errors?.[0]?.field, problem.errors?.[0]?.code];
    };
    assert.deepEqual(await errorOf({ page: 3, x: 10, y: 10, width: 100, height: 40 }), ['appearance.page', 'OUT_OF_RANGE']);
    assert.deepEqual(await errorOf({ page: 1, x: 600, y: 10, width: 100, height: 40 }), ['appearance', 'OUT_OF_RANGE']);
    assert.deepEqual(await errorOf({ page: 1, x: 10, y: 10, width: 5, height: 40 }), ['appearance.width', 'OUT_OF_RANGE']);
  });
});
