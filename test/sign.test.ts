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
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfToText, qpdfCheck } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';
import { signedPdf } from './helpers/signed-pdf.js';
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
});
