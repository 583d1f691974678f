// POST /api/v1/optimize against a real server, each result checked with real
// tools: qpdf --check (clean), pdftotext (text identical before and after),
// pdfinfo (pages and their sizes equal, metadata, encryption), pdfimages
// -list (each image's pixels and effective resolution, and how many image
// objects there are), pdffonts (fonts stored once), pdfsig (signatures),
// and the contract's documented responses and headers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { imageHeavyPdf, textHeavyPdf } from './fixtures/optimize-documents.js';
import { assertInvalidPdf, readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfFonts, pdfImages, pdfInfo, pdfToText, qpdfCheck, withFile, type PdfImage } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';
import { signedPdf } from './helpers/signed-pdf.js';
import { withBrokenStartxref } from './helpers/raw-pdf.js';
import { pdfsig } from './helpers/signing.js';

const run = promisify(execFile);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** pdfinfo's per-page sizes, "612 x 792" each. */
async function pageSizes(pdf: Uint8Array): Promise<string[]> {
  const out = await withFile(pdf, async (path) => (await run('pdfinfo', ['-f', '1', '-l', '1000', path])).stdout);
  return [...out.matchAll(/^Page\s+\d+ size:\s+([\d.]+ x [\d.]+)/gm)].map((m) => m[1] as string);
}

test('optimize: smaller, same text, same pages, images at the target resolution', async (t) => {
  const server = await startTestServer({ PLATEN_EDITION: 'enterprise' });
  t.after(() => server.close());
  const contract = await loadContract('render');
  const call = async (body: unknown, key: string = KEYS.pro): Promise<Response> => {
    const response = await fetch(`${server.base}/api/v1/optimize`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', '/api/v1/optimize', response.clone());
    return response;
  };
  /** The optimized PDF, after the checks every result must pass against its source. */
  const optimized = async (source: Uint8Array, body: Record<string, unknown> = {}): Promise<{ pdf: Uint8Array; response: Response }> => {
    const response = await call({ pdf: b64(source), ...body });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.equal(response.headers.get('content-disposition'), 'inline; filename="optimize.pdf"');
    const pdf = new Uint8Array(await response.arrayBuffer());
    assert.equal(response.headers.get('x-original-size'), String(source.length));
    assert.equal(response.headers.get('x-optimized-size'), String(pdf.length));
    assert.ok(pdf.length <= source.length, 'never larger than the input');
    await qpdfCheck(pdf);
    assert.equal(await pdfToText(pdf), await pdfToText(source), 'the text is identical');
    assert.deepEqual(await pageSizes(pdf), await pageSizes(source));
    return { pdf, response };
  };
  const heavy = await imageHeavyPdf({ pages: 3, photoWidth: 1800, placedWidth: 180 });
  const text = await textHeavyPdf(12);
  const before = await pdfImages(heavy);

  await t.test('image-heavy, default profile (ebook): every downsampled image at 150 ppi, the duplicate photograph stored once', async () => {
    const { pdf, response } = await optimized(heavy);
    assert.equal(response.headers.get('x-optimization'), 'optimized');
    assert.ok(pdf.length < heavy.length / 10, `${heavy.length} → ${pdf.length}`);
    const after = await pdfImages(pdf);
    assert.equal(after.length, before.length, 'every placement still paints an image');
    // The photographs (1800 px placed 180 pt wide: 720 ppi) and the others were all above 1.5 x 150 ppi.
    for (const image of before) assert.ok(image.ppi > 225, `fixture image at ${image.ppi} ppi`);
    for (const image of after) assert.ok(Math.abs(image.ppi - 150) <= 1, `${JSON.stringify(image)} is not at 150 ppi`);
    // The photographs stay JPEG, the few-colour chart stays lossless, the soft mask stays a gray soft mask.
    const chart = after[2] as PdfImage;
    assert.deepEqual([chart.type, chart.encoding], ['image', 'image']);
    assert.deepEqual(after.filter((image) => image.type === 'smask').map((image) => image.color), ['gray']);
    assert.ok(after.filter((image) => image.type === 'image' && image !== chart).every((image) => image.encoding === 'jpeg'));
    // The last photograph is the first stored again: one object after, two before.
    const objects = (list: PdfImage[]) => new Set(list.filter((image) => image.type === 'image').map((image) => image.object)).size;
    assert.equal(objects(after), objects(before) - 1);
  });

  await t.test('profiles set the resolution (screen 72, printer 300); image_dpi overrides the profile', async () => {
    for (const [body, ppi] of [[{ profile: 'screen' }, 72], [{ profile: 'printer' }, 300], [{ profile: 'printer', image_dpi: 100 }, 100]] as const) {
      const photos = (await pdfImages((await optimized(heavy, body)).pdf)).filter((image) => image.page > 1);
      assert.ok(photos.length > 0);
      for (const image of photos) assert.ok(Math.abs(image.ppi - ppi) <= 1, `${JSON.stringify(body)}: ${image.ppi} ppi`);
    }
  });

  await t.test('grayscale: the images become gray', async () => {
    const after = await pdfImages((await optimized(heavy, { grayscale: true })).pdf);
    assert.deepEqual([...new Set(after.map((image) => image.color))], ['gray']);
  });

  await t.test('text-heavy: smaller through object streams and recompression, the font embedded twice stored once', async () => {
    const { pdf, response } = await optimized(text);
    assert.equal(response.headers.get('x-optimization'), 'optimized');
    assert.ok(pdf.length < text.length * 0.8, `${text.length} → ${pdf.length}`);
    const times = (fonts: Awaited<ReturnType<typeof pdfFonts>>) => fonts.filter((font) => font.name === 'Times-Roman').length;
    assert.equal(times(await pdfFonts(text)), 2);
    assert.equal(times(await pdfFonts(pdf)), 1);
  });

  await t.test('nothing to gain: the input comes back byte for byte, X-Optimization: unchanged', async () => {
    const once = (await optimized(text)).pdf;
    const { pdf, response } = await optimized(once);
    assert.equal(response.headers.get('x-optimization'), 'unchanged');
    assert.deepEqual(Buffer.from(pdf), Buffer.from(once));
  });

  await t.test('metadata: kept by ebook, removed by screen and by remove_metadata', async () => {
    assert.match((await pdfInfo(heavy)).Producer ?? '', /pdf-lib/);
    assert.match((await pdfInfo((await optimized(heavy)).pdf)).Producer ?? '', /pdf-lib/);
    assert.equal((await pdfInfo((await optimized(heavy, { profile: 'screen' })).pdf)).Producer, undefined);
    assert.equal((await pdfInfo((await optimized(heavy, { remove_metadata: true })).pdf)).Producer, undefined);
  });

  await t.test('object_streams: false writes a classic cross-reference table', async () => {
    const { pdf } = await optimized(text, { object_streams: false });
    assert.ok(!Buffer.from(pdf).includes('/ObjStm'));
    assert.ok(Buffer.from((await optimized(text)).pdf).includes('/ObjStm'));
  });

  await t.test('a PDF/A file keeps its XMP identification even with remove_metadata, and a PDF/A-1 file gets no object streams', async () => {
    const claiming = async (part: number): Promise<Uint8Array> => {
      const doc = await PDFDocument.load(text);
      const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>${part}</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
      doc.catalog.set(PDFName.of('Metadata'), doc.context.register(doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' })));
      return doc.save({ useObjectStreams: false });
    };
    const meta = (pdf: Uint8Array) => withFile(pdf, async (path) => (await run('pdfinfo', ['-meta', path])).stdout);
    const one = (await optimized(await claiming(1), { profile: 'screen' })).pdf;
    assert.match(await meta(one), /<pdfaid:part>1<\/pdfaid:part>/);
    assert.ok(!Buffer.from(one).includes('/ObjStm'), 'PDF/A-1: no object streams');
    const two = (await optimized(await claiming(2), { remove_metadata: true })).pdf;
    assert.match(await meta(two), /<pdfaid:part>2<\/pdfaid:part>/);
    assert.ok(Buffer.from(two).includes('/ObjStm'), 'PDF/A-2 allows object streams');
  });

  await t.test('an encrypted document: its password is needed, and the result is encrypted the same way', async () => {
    const encrypted = await withFile(heavy, async (path) => {
      await run('qpdf', ['--encrypt', 'user-pw', 'owner-pw', '256', '--', path, `${path}.enc`]);
      return new Uint8Array(await readFile(`${path}.enc`));
    });
    const missing = await call({ pdf: b64(encrypted) });
    assert.equal(missing.status, 422);
    const problem = await readProblem(missing);
    assert.equal(problem.slug, 'pdf-password-required');
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['password', 'REQUIRED']]);
    const wrong = await readProblem(await call({ pdf: b64(encrypted), password: 'nope' }));
    assert.deepEqual(wrong.errors?.map((e) => [e.field, e.code]), [['password', 'INCORRECT']]);
    const response = await call({ pdf: b64(encrypted), password: 'user-pw' });
    assert.equal(response.status, 200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    assert.ok(pdf.length < encrypted.length / 10);
    const info = await withFile(pdf, async (path) => (await run('pdfinfo', ['-upw', 'user-pw', path])).stdout);
    assert.match(info, /^Encrypted:\s+yes \(.*AES-256/m);
    await withFile(pdf, async (path) => run('qpdf', ['--check', '--password=user-pw', path]));
    await assert.rejects(withFile(pdf, async (path) => run('pdftotext', [path, '-'])), 'the result does not open without the password');
    assert.ok((await pdfImages(pdf, 'user-pw')).every((image) => Math.abs(image.ppi - 150) <= 1));
  });

  await t.test('a signed document: 422 document-signed, unless remove_signatures (then no signature is left to be broken)', async () => {
    const signed = await signedPdf(2);
    const refused = await call({ pdf: b64(signed) });
    assert.equal(refused.status, 422);
    const problem = await readProblem(refused);
    assert.equal(problem.slug, 'document-signed');
    assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['pdf', 'SIGNED_DOCUMENT']]);
    assert.deepEqual((await pdfsig(signed)).map((s) => s.validation), ['Signature is Valid.']);
    const { pdf } = await optimized(signed, { remove_signatures: true });
    // The field is still there, unsigned: pdfsig lists it with no signature to validate.
    assert.deepEqual(await pdfsig(pdf), [{ validation: '(none)', type: '(none)' }]);
  });

  await t.test('a usage-rights signature (/Perms /UR3) is a signature too: 422 document-signed; remove_signatures leaves no /Perms, /UR3 or /ByteRange', async () => {
    // Before, only signature fields counted here: such a file was optimized without remove_signatures, and with it kept /Perms /UR3 and its /ByteRange.
    const signed = await signedPdf(2, { usageRights: true });
    const refused = await call({ pdf: b64(signed) });
    assert.equal(refused.status, 422);
    const problem = await readProblem(refused);
    assert.equal(problem.slug, 'document-signed');
    assert.match(problem.detail ?? '', /holds 1 signature,/);
    const { pdf } = await optimized(signed, { remove_signatures: true });
    const expanded = await withFile(pdf, async (path) => {
      await run('qpdf', ['--qdf', '--object-streams=disable', path, `${path}.qdf`]);
      return (await readFile(`${path}.qdf`)).toString('latin1');
    });
    for (const key of ['/Perms', '/UR3', '/ByteRange', '/SigRef']) assert.ok(!expanded.includes(key), `${key} is gone`);
  });

  await t.test('a truncated or damaged PDF: 422 invalid-pdf-data with what is wrong, as linearize, merge and split answer it; a miscounted /Size still passes', async () => {
    // Before, pdf-lib read what it could of such a file and the rewrite came back 200 without what it missed (an image, a font).
    const whole = Buffer.from(heavy);
    const cases: Array<[Uint8Array, RegExp]> = [
      [whole.subarray(0, Math.floor(whole.length / 2)), /^pdf is truncated: it does not end with %%EOF, so it was probably cut short/],
      [withBrokenStartxref(text), /^pdf is damaged: \d+ structural problems?.*It is not repaired here/],
    ];
    for (const [input, detail] of cases) await assertInvalidPdf(await call({ pdf: b64(input) }), detail);
    // Not canonical, not damaged: a trailer /Size that miscounts the objects (72 corpus files; linearize accepts them too).
    const miscounted = Buffer.from(Buffer.from(text).toString('latin1').replace(/\/Size (\d+)/, (_, size: string) => `/Size ${Number(size) + 2}`), 'latin1');
    await optimized(miscounted);
  });

  await t.test('bad requests: not a PDF, an unknown profile, a quality out of range, a core key', async () => {
    const notPdf = await call({ pdf: b64(Buffer.from('hello, not a pdf')) });
    assert.equal(notPdf.status, 422);
    assert.equal((await readProblem(notPdf)).slug, 'invalid-pdf-data');
    const profile = await readProblem(await call({ pdf: b64(text), profile: 'prepress' }));
    assert.deepEqual([problem(profile)], [['validation-failed', 'profile', 'INVALID_ENUM']]);
    const quality = await readProblem(await call({ pdf: b64(text), image_quality: 0 }));
    assert.deepEqual([problem(quality)], [['validation-failed', 'image_quality', 'OUT_OF_RANGE']]);
    const denied = await call({ pdf: b64(text) }, KEYS.core);
    assert.equal(denied.status, 403);
    assert.equal((await readProblem(denied)).slug, 'capability-denied');
  });
});

function problem(p: Awaited<ReturnType<typeof readProblem>>): [string, string | undefined, string | undefined] {
  return [p.slug, p.errors?.[0]?.field, p.errors?.[0]?.code];
}
