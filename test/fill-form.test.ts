// POST /api/v1/fill-form against a real server: every field kind filled
// (text with Cyrillic and Greek, comb, multi-line, check box with its own
// export value, radio, combo with export values apart from their text,
// single and multi-select list boxes) and read back by the reader
// (/v1/parse form_fields); appearances that poppler paints; flattening
// (no form left, pdftotext shows the values); every refusal with its
// errors[]; a signed document filled as an incremental update whose
// signature pdfsig still finds valid; encrypted, hybrid XFA and certified
// documents.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { PDFBool, PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from '@cantoo/pdf-lib';
import { FILLED_VALUES, formPdf, NAME_BOX, plainPdf, xfaOnlyPdf } from './helpers/form-pdf.js';
import { readFormFields } from './helpers/form-fields.js';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfFonts, pdfInfo, pdfToText, qpdfCheck, qpdfTransform } from './helpers/pdf-tools.js';
import { darkPixels } from './helpers/raster.js';
import { startTestServer } from './helpers/server.js';
import { makeIdentities, pdfsig } from './helpers/signing.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Data = any;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

const VALUES = FILLED_VALUES;

/** The name field's inside, without its border. */
const NAME_INSIDE = { x: NAME_BOX.x + 3, y: NAME_BOX.y + 3, width: NAME_BOX.width - 6, height: NAME_BOX.height - 6 };

test('fill-form', async (t) => {
  const identities = await makeIdentities();
  t.after(() => identities.dispose());
  const server = await startTestServer({ PLATEN_EDITION: 'enterprise', PLATEN_SIGNING_P12_FILE: identities.rsa.p12File, PLATEN_SIGNING_P12_PASSWORD: identities.rsa.password });
  t.after(() => server.close());
  const render = await loadContract('render');
  const call = async (body: unknown, key: string = KEYS.pro, path = '/api/v1/fill-form'): Promise<Response> => {
    const response = await fetch(`${server.base}${path}`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(render, 'post', path, response.clone());
    return response;
  };
  const pdfOf = async (response: Response): Promise<Uint8Array> => {
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.equal(response.headers.get('content-disposition'), 'inline; filename="fill-form.pdf"');
    const pdf = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(pdf);
    return pdf;
  };
  /** The reader's form fields of page 1, by name. */
  const formFields = (pdf: Uint8Array) => readFormFields(server.base, pdf);
  const source = await formPdf();

  await t.test('every kind of field: the reader reads the values back; appearances drawn, NeedAppearances false', async () => {
    const pdf = await pdfOf(await call({ pdf: b64(source), fields: VALUES }));
    const fields = await formFields(pdf);
    const value = (name: string) => fields.get(name)?.value;
    const doc = await PDFDocument.load(pdf);
    assert.equal(value('person.name'), 'Иван Петров');
    assert.equal(value('person.email'), 'ivan@example.org');
    assert.equal(value('zip'), '80331');
    assert.equal(value('notes'), VALUES.notes);
    assert.equal(value('agree'), true);
    // pdf-lib's radio buttons have export values in /Opt (S, M, L) and "on" states 0, 1, 2: /V and the reader say 1.
    assert.equal(value('size'), '1');
    assert.equal(doc.getForm().getRadioGroup('size').getSelected(), 'M');
    // /V holds the export value; the option was named by the text it shows.
    assert.deepEqual(value('country'), ['GR']);
    assert.deepEqual(value('langs'), ['de', 'ru']);
    assert.deepEqual(value('level'), ['senior']);
    assert.equal(value('reference'), 'REF-1');

    assert.equal(doc.getForm().acroForm.dict.get(PDFName.of('NeedAppearances')), PDFBool.False);
    // The Cyrillic and Greek values are drawn with DejaVu Sans, embedded as a subset.
    const dejavu = (await pdfFonts(pdf)).filter((font) => font.name.includes('DejaVuSans'));
    assert.equal(dejavu.length, 1, JSON.stringify(dejavu));
    assert.ok(dejavu.every((font) => font.embedded && font.subset), JSON.stringify(dejavu));
    // poppler paints the value: the empty field's inside has no dark pixel, the filled one many.
    assert.equal(await darkPixels(source, NAME_INSIDE), 0);
    assert.ok((await darkPixels(pdf, NAME_INSIDE)) > 100);
  });

  await t.test('flatten: no form left; the values are page text, the long multi-line value wrapped whole', async () => {
    const pdf = await pdfOf(await call({ pdf: b64(source), fields: VALUES, flatten: true }));
    assert.equal((await pdfInfo(pdf)).Form, 'none');
    assert.equal((await formFields(pdf)).size, 0);
    const text = (await pdfToText(pdf)).replace(/\s+/g, ' ');
    for (const shown of ['Иван Петров', 'ivan@example.org', '80331', 'Ελλάδα', 'REF-1', 'Line one', 'should wrap inside the box nicely']) assert.ok(text.includes(shown), `${shown} in ${text}`);
  });

  await t.test('values in scripts DejaVu lacks are drawn in the Noto face of the script: Chinese, Hindi', async () => {
    const values = { 'person.name': '张伟 Zhang Wei', notes: 'नमस्ते दुनिया' };
    const pdf = await pdfOf(await call({ pdf: b64(source), fields: values, flatten: true }));
    const fonts = (await pdfFonts(pdf)).map((font) => `${font.name} ${font.embedded && font.subset ? 'subset' : 'whole'}`).join(', ');
    assert.match(fonts, /NotoSansSC\S* subset/);
    assert.match(fonts, /NotoSansDevanagari\S* subset/);
    const text = (await pdfToText(pdf)).replace(/\s+/g, ' ');
    assert.ok(text.includes('张伟 Zhang Wei'), text);
    // A value with a character no font has (an Egyptian hieroglyph) is refused, not drawn with holes; mixed scripts are test/fill-form-scripts.test.ts's.
    const refused = await call({ pdf: b64(source), fields: { notes: 'नमस्ते \u{13000}' } });
    assert.equal(refused.status, 422);
    assert.match(JSON.stringify((await refused.json()) as Data), /UNSUPPORTED_CHARACTERS/);
  });

  await t.test('check box by export value and off again; radio by state name; a read-only field with force; an empty fields object', async () => {
    const on = await pdfOf(await call({ pdf: b64(source), fields: { agree: 'Accepted', reference: 'REF-2', size: '2' }, force: true }));
    let fields = await formFields(on);
    assert.equal(fields.get('agree')?.value, true);
    assert.equal(fields.get('size')?.value, '2', 'a radio option named by its state, as parse reports it');
    assert.equal(fields.get('reference')?.value, 'REF-2');
    const off = await pdfOf(await call({ pdf: b64(on), fields: { agree: false } }));
    fields = await formFields(off);
    assert.equal(fields.get('agree')?.value, false);
    assert.equal(fields.get('reference')?.value, 'REF-2');
    await pdfOf(await call({ pdf: b64(source), fields: {} }));
  });

  await t.test('one errors[] entry per bad field, all at once', async () => {
    const response = await call({
      pdf: b64(source),
      fields: { nope: 'x', person: 'x', 'person.name': 5, zip: '123456', agree: 'Yes', size: 'XL', country: 'FR', level: ['junior', 'senior'], reference: 'x', submit: 'x', 'person.email': 'a\nb', notes: '\u{1D11E} clef' },
    });
    const problem = await readProblem(response);
    assert.equal(response.status, 422);
    assert.equal(problem.slug, 'validation-failed');
    const codes = Object.fromEntries((problem.errors ?? []).map((error) => [error.field, error.code]));
    assert.deepEqual(codes, {
      'fields.nope': 'UNKNOWN_FIELD',
      'fields.person': 'UNKNOWN_FIELD',
      'fields.person.name': 'INVALID_TYPE',
      'fields.zip': 'TOO_LONG',
      'fields.agree': 'INVALID_OPTION',
      'fields.size': 'INVALID_OPTION',
      'fields.country': 'INVALID_OPTION',
      'fields.level': 'INVALID_TYPE',
      'fields.reference': 'READ_ONLY',
      'fields.submit': 'INVALID_TYPE',
      'fields.person.email': 'INVALID_VALUE',
      'fields.notes': 'UNSUPPORTED_CHARACTERS',
    });
    assert.match(problem.detail, /12 fields/);
  });

  await t.test('a PDF without a form: every name is UNKNOWN_FIELD', async () => {
    const response = await call({ pdf: b64(await plainPdf()), fields: { a: 'x', b: true } });
    const problem = await readProblem(response);
    assert.equal(response.status, 422);
    assert.deepEqual(problem.errors?.map((error) => [error.field, error.code]), [['fields.a', 'UNKNOWN_FIELD'], ['fields.b', 'UNKNOWN_FIELD']]);
  });

  await t.test('an XFA-only form: 422 xfa-form-unsupported', async () => {
    const response = await call({ pdf: b64(await xfaOnlyPdf()), fields: { name: 'x' } });
    const problem = await readProblem(response);
    assert.equal(response.status, 422);
    assert.equal(problem.slug, 'xfa-form-unsupported');
    assert.deepEqual(problem.errors?.map((error) => [error.field, error.code]), [['pdf', 'XFA_FORM']]);
  });

  await t.test('a signed document: filled as an incremental update, the signature still valid; flatten refused', async () => {
    const signResponse = await call({ pdf: b64(source), reason: 'Reviewed' }, KEYS.pro, '/api/v1/sign');
    assert.equal(signResponse.status, 200);
    const signed = new Uint8Array(await signResponse.arrayBuffer());
    const filled = await pdfOf(await call({ pdf: b64(signed), fields: { 'person.name': 'Иван Петров', agree: true } }));
    assert.deepEqual(Buffer.from(filled.subarray(0, signed.length)), Buffer.from(signed), 'the signed bytes come back unchanged');
    const signatures = await pdfsig(filled);
    assert.equal(signatures.length, 1);
    assert.equal(signatures[0]?.validation, 'Signature is Valid.');
    const fields = await formFields(filled);
    assert.equal(fields.get('person.name')?.value, 'Иван Петров');
    assert.ok((await darkPixels(filled, NAME_INSIDE)) > 100);

    const response = await call({ pdf: b64(signed), fields: { agree: true }, flatten: true });
    const problem = await readProblem(response);
    assert.equal(response.status, 422);
    assert.deepEqual(problem.errors?.map((error) => [error.field, error.code]), [['flatten', 'INVALID_VALUE']]);
  });

  await t.test("fields a signature's /Lock names are refused, even with force; the others fill", async () => {
    const doc = await PDFDocument.load(source);
    const context = doc.context;
    const page = doc.getPage(0);
    // The structure a signature with a field lock leaves (ISO 32000-2 section 12.7.5.5): not a valid signature,
    // which this check does not need.
    const signature = context.register(context.obj({ Type: 'Sig', Filter: 'Adobe.PPKLite', SubFilter: 'ETSI.CAdES.detached', Contents: PDFHexString.of('00') }));
    const widget = context.register(
      context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', T: PDFString.of('Approval'), V: signature, Rect: [0, 0, 0, 0], P: page.ref, Lock: { Type: 'SigFieldLock', Action: 'Include', Fields: [PDFString.of('zip'), PDFString.of('person')] } }),
    );
    page.node.addAnnot(widget);
    doc.getForm().acroForm.addField(widget);
    const locked = await doc.save({ useObjectStreams: false, updateFieldAppearances: false });
    const response = await call({ pdf: b64(locked), fields: { zip: '12345', 'person.email': 'a@b.c', agree: true }, force: true });
    const problem = await readProblem(response);
    assert.equal(response.status, 422);
    assert.deepEqual(problem.errors?.map((error) => [error.field, error.code]), [['fields.zip', 'READ_ONLY'], ['fields.person.email', 'READ_ONLY']]);
    const filled = await pdfOf(await call({ pdf: b64(locked), fields: { agree: true } }));
    assert.deepEqual(Buffer.from(filled.subarray(0, locked.length)), Buffer.from(locked), 'a signed document is filled as an incremental update');
  });

  await t.test('an encrypted document: opened with its password, written unencrypted', async () => {
    const encrypted = await qpdfTransform(source, ['--encrypt', 'user', 'owner', '256', '--']);
    const without = await call({ pdf: b64(encrypted), fields: { zip: '12345' } });
    assert.equal((await readProblem(without)).slug, 'pdf-password-required');
    const pdf = await pdfOf(await call({ pdf: b64(encrypted), password: 'user', fields: { zip: '12345', 'person.name': 'Zoë' } }));
    assert.equal((await pdfInfo(pdf)).Encrypted, 'no');
    const fields = await formFields(pdf);
    assert.deepEqual([fields.get('zip')?.value, fields.get('person.name')?.value], ['12345', 'Zoë']);
  });

  await t.test('a hybrid XFA form loses its XFA part; a certification with DocMDP P=1 is refused', async () => {
    const doc = await PDFDocument.load(source);
    const context = doc.context;
    const acroForm = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict);
    acroForm.set(PDFName.of('XFA'), context.obj([PDFString.of('template'), context.register(context.stream('<template/>'))]));
    const hybrid = await doc.save({ updateFieldAppearances: false });
    const filled = await PDFDocument.load(await pdfOf(await call({ pdf: b64(hybrid), fields: { zip: '12345' } })));
    assert.equal(filled.catalog.lookup(PDFName.of('AcroForm'), PDFDict).get(PDFName.of('XFA')), undefined);
    assert.equal(filled.getForm().getTextField('zip').getText(), '12345');

    const reference = context.obj({ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: { Type: 'TransformParams', P: 1, V: '1.2' } });
    doc.catalog.set(PDFName.of('Perms'), context.obj({ DocMDP: context.register(context.obj({ Type: 'Sig', Reference: [reference] })) }));
    const response = await call({ pdf: b64(await doc.save({ updateFieldAppearances: false })), fields: { zip: '12345' } });
    const problem = await readProblem(response);
    assert.equal(problem.slug, 'document-certified');
    assert.deepEqual(problem.errors?.map((error) => [error.field, error.code]), [['pdf', 'CERTIFIED_NO_CHANGES']]);
  });

  await t.test('a file whose XMP claims PDF/A-1 is written without object streams, which PDF/A-1 forbids (was a 500)', async () => {
    // veraPDF's PDF/A-1b file (test/fixtures/README.md); it has no form, so nothing is filled.
    const pdfa1 = await readFile(new URL('../../test/fixtures/verapdf-6-2-2-t01-pass-a.pdf', import.meta.url));
    const response = await call({ pdf: b64(pdfa1), fields: {} });
    assert.equal(response.status, 200);
    const written = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(written);
    assert.ok(!Buffer.from(written).includes('/ObjStm'), 'no object stream');
    assert.ok(!Buffer.from(written).includes('/XRefStm') && !/\/Type\s*\/XRef\b/.test(Buffer.from(written).toString('latin1')), 'no cross-reference stream');
  });

  await t.test('tiers and the request schema', async () => {
    assert.equal((await readProblem(await call({ pdf: b64(source), fields: {} }, KEYS.core))).slug, 'capability-denied');
    const missing = await call({ pdf: b64(source) });
    assert.equal(missing.status, 422);
    assert.deepEqual((await readProblem(missing)).errors?.map((error) => [error.field, error.code]), [['fields', 'REQUIRED']]);
    const notPdf = await call({ pdf: b64(Buffer.from('hello, not a pdf')), fields: {} });
    assert.equal((await readProblem(notPdf)).slug, 'invalid-pdf-data');
  });
});
