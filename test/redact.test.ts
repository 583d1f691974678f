// POST /api/v1/redact against a real server: what was redacted is gone
// from the file, not covered. Checked with pdftotext (text and word boxes),
// every stream inflated and searched in the encodings a PDF may hold text
// in, every content string decoded through every ToUnicode map, qpdf
// --check, pdftoppm (the painted box), pdfimages (the image's own pixels),
// qpdf --json (form fields), and the contract.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { readProblem } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract } from './helpers/openapi.js';
import { pdfToText, qpdfCheck, withFile, wordBoxes, type WordBox } from './helpers/pdf-tools.js';
import { annotatedFormDocument, encodingsOf, encryptedDocument, everyStream, formDocument, formBombDocument, incrementalDocument, linesDocument, mixedDocument, spacedDocument, SECRET_NAME, SSN, textDocument, throughToUnicode, TYPE0_SECRET } from './helpers/redact-fixtures.js';
import { startTestServer } from './helpers/server.js';

const run = promisify(execFile);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** Asserts that no encoding of `secret` is anywhere in the file, after checking the same search finds it in `before`. */
function assertGone(before: Uint8Array, after: Uint8Array, secret: string): void {
  const found = (pdf: Uint8Array) => {
    const streams = everyStream(pdf);
    return encodingsOf(secret).some((form) => streams.includes(form)) || throughToUnicode(pdf).includes(secret);
  };
  assert.equal(found(before), true, `the search does not find "${secret}" in the input, so it proves nothing`);
  assert.equal(found(after), false, `"${secret}" is still in the output`);
}

const key = (word: WordBox) => `${word.page}:${word.word}@${word.xMin.toFixed(1)},${word.yMin.toFixed(1)}`;

/** The colour of the pixel at (x, y) points from the top-left of page 1, rendered at 72 dpi. */
async function pixelAt(pdf: Uint8Array, x: number, y: number): Promise<[number, number, number]> {
  const png = await withFile(pdf, async (path) => {
    await run('pdftoppm', ['-r', '72', '-f', '1', '-l', '1', '-png', '-singlefile', path, `${path}.page`]);
    return readFile(`${path}.page.png`);
  });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (Math.round(y) * info.width + Math.round(x)) * info.channels;
  return [data[at] as number, data[at + 1] as number, data[at + 2] as number];
}

test('redact', async (t) => {
  // A 10 s processing timeout: a backtracking engine on the hostile pattern below would run into it (504).
  const server = await startTestServer({ PLATEN_TIMEOUT_MS: '10000' });
  t.after(() => server.close());
  const contract = await loadContract('render');
  const call = async (body: unknown, apiKey: string = KEYS.pro): Promise<Response> => {
    const response = await fetch(`${server.base}/api/v1/redact`, { method: 'POST', headers: { ...bearer(apiKey), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await assertMatchesContract(contract, 'post', '/api/v1/redact', response.clone());
    return response;
  };
  const redacted = async (body: unknown, areas: number): Promise<Uint8Array> => {
    const response = await call(body);
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.equal(response.headers.get('x-redactions'), String(areas));
    const pdf = new Uint8Array(await response.arrayBuffer());
    await qpdfCheck(pdf);
    return pdf;
  };
  const TEXT = await textDocument();

  await t.test('text and a pattern: the glyphs are gone in every encoding, the rest of each line is where it was, the boxes are painted', async () => {
    const pdf = await redacted({ pdf: b64(TEXT), text: [SECRET_NAME, TYPE0_SECRET], patterns: ['\\d{3}-\\d{2}-\\d{4}'] }, 4);
    const text = await pdfToText(pdf);
    for (const secret of [SECRET_NAME, 'John', 'Smith', SSN, TYPE0_SECRET, 'Zyxwv', 'Quanta']) assert.equal(text.includes(secret), false, `pdftotext still shows ${secret}`);
    for (const secret of [SECRET_NAME, SSN, TYPE0_SECRET]) assertGone(TEXT, pdf, secret);
    // Every word that was not redacted is still extracted, at the same place.
    const before = (await wordBoxes(TEXT)).filter((word) => !/John|Smith|123-45|Zyxwv|Quanta/.test(word.word));
    const after = await wordBoxes(pdf);
    // "Smith," loses "Smith": its comma is a word of its own, where it was (x 165.2 on line 1).
    assert.deepEqual(after.map(key).sort(), [...before.map(key), '1:,@165.2,81.9'].sort());
    assert.ok(after.some((word) => word.word === 'Before') && after.some((word) => word.word === 'after'));
    // "John Smith" on page 1 runs from x 95 to 165 on the line whose top is y 82: the middle of it is black now.
    assert.deepEqual(await pixelAt(pdf, 130, 90), [0, 0, 0]);
    // No document information: the title and author named him.
    const info = await withFile(pdf, async (path) => (await run('pdfinfo', [path])).stdout);
    assert.doesNotMatch(info, /^(Title|Author):/m);
  });

  await t.test('areas in page coordinates, fill_color, and a page without areas left alone', async () => {
    const [name] = (await wordBoxes(TEXT)).filter((word) => word.word === 'John');
    assert.ok(name !== undefined);
    const pdf = await redacted({ pdf: b64(TEXT), areas: [{ page: 1, x: name.xMin - 1, y: name.yMin, width: name.xMax - name.xMin + 2, height: name.yMax - name.yMin }], fill_color: '#ff0000' }, 1);
    const words = (await wordBoxes(pdf)).map((word) => `${word.page}:${word.word}`);
    assert.equal(words.includes('1:John'), false);
    assert.ok(words.includes('1:Smith,') && words.includes('1:Name:') && words.includes('2:Smith'));
    assert.deepEqual(await pixelAt(pdf, (name.xMin + name.xMax) / 2, (name.yMin + name.yMax) / 2), [255, 0, 0]);
  });

  await t.test('a form XObject drawn on two pages: removed where redacted, kept (the original form) on the other page', async () => {
    const FORM = await formDocument();
    // The form's text on page 1 sits on the baseline at y 792 - 700 = 92.
    const pdf = await redacted({ pdf: b64(FORM), areas: [{ page: 1, x: 40, y: 70, width: 300, height: 30 }] }, 1);
    const pages = (await pdfToText(pdf)).split('\f');
    assert.equal(pages[0]?.includes('FORMSECRET'), false);
    assert.match(pages[1] ?? '', /Stamp FORMSECRET here/);
  });

  await t.test('an image: the pixels under the area are overwritten in the image itself; a vector path inside goes; a link and a field inside go', async () => {
    const MIXED = await mixedDocument();
    // The image covers (100, 192)-(300, 392) top-left; the area takes its top-left quadrant's inner part and the box with the square, link and field.
    const pdf = await redacted({ pdf: b64(MIXED), areas: [{ page: 1, x: 110, y: 200, width: 60, height: 60 }, { page: 1, x: 300, y: 100, width: 100, height: 100 }] }, 2);
    const images = await withFile(pdf, async (path) => {
      await run('pdfimages', ['-png', path, `${path}.img`]);
      return sharp(await readFile(`${path}.img-000.png`)).raw().toBuffer({ resolveWithObject: true });
    });
    const pixel = (x: number, y: number) => {
      const at = (y * images.info.width + x) * images.info.channels;
      return [images.data[at], images.data[at + 1], images.data[at + 2]];
    };
    assert.equal(images.info.width, 100);
    // The area is image pixels 5-35 across and 4-34 down: black; the rest of the red quadrant and the others unchanged.
    assert.deepEqual(pixel(20, 20), [0, 0, 0]);
    assert.deepEqual(pixel(45, 45), [255, 0, 0]);
    assert.deepEqual(pixel(75, 25), [0, 255, 0]);
    assert.deepEqual(pixel(25, 75), [0, 0, 255]);
    const streams = everyStream(pdf);
    // pdf-lib draws the 40 x 40 square as a path through (40, 40), and the 300 x 4 line through (300, 4).
    assert.match(everyStream(MIXED), /\b40 40 l\b/);
    assert.doesNotMatch(streams, /\b40 40 l\b/, 'the square inside the area is still drawn');
    assert.match(streams, /\b300 4 l\b/, 'the line crossing the area was removed');
    assert.equal(streams.includes('hidden@example.com'), false);
    assert.ok(streams.includes('https://example.com/kept'));
    const fields = await withFile(pdf, async (path) => JSON.parse((await run('qpdf', ['--json', '--json-key=acroform', path])).stdout) as { acroform: { fields: { fullname: string }[] } });
    assert.deepEqual(fields.acroform.fields.map((field) => field.fullname), ['outside']);
  });

  await t.test('text only annotations hold: a filled field (appearance, /V, /DV) and a comment are found and taken out, a field that matches nothing stays', async () => {
    const ANNOTATED = await annotatedFormDocument();
    const before = await pdfToText(ANNOTATED);
    assert.match(before, /John Smith 123-45-6789/);
    assert.match(before, /Note on John Smith/);
    // name: two matches in its appearance; the comment: one in its appearance; stale: its /V; reset: its /DV.
    const pdf = await redacted({ pdf: b64(ANNOTATED), text: [SECRET_NAME], patterns: ['\\d{3}-\\d{2}-\\d{4}'] }, 5);
    const text = await pdfToText(pdf);
    for (const secret of [SECRET_NAME, SSN, 'Note on']) assert.equal(text.includes(secret), false, `pdftotext still shows ${secret}`);
    assert.match(text, /Applicant form/);
    assert.match(text, /kept value/);
    for (const secret of [SECRET_NAME, SSN]) assertGone(ANNOTATED, pdf, secret);
    const fields = await withFile(pdf, async (path) => JSON.parse((await run('qpdf', ['--json', '--json-key=acroform', path])).stdout) as { acroform: { fields: { fullname: string; value: string }[] } });
    assert.deepEqual(fields.acroform.fields.map((field) => [field.fullname, field.value]), [['other', 'u:kept value']]);
    // The matched glyphs' boxes are painted: pdftotext put "John" in the field at x 51.5 to 90.5, y 213.5 to 230.2.
    assert.deepEqual(await pixelAt(pdf, 70, 222), [0, 0, 0]);
  });

  await t.test('an incremental update: the earlier revision\'s text and metadata are not in the fresh file', async () => {
    const INCREMENTAL = await incrementalDocument();
    assert.equal(Buffer.from(INCREMENTAL).toString('latin1').split('%%EOF').length - 1, 2);
    const pdf = await redacted({ pdf: b64(INCREMENTAL), text: ['NOWSECRET'] }, 1);
    assertGone(INCREMENTAL, pdf, 'NOWSECRET');
    assertGone(INCREMENTAL, pdf, 'OLDREVISION');
    assertGone(INCREMENTAL, pdf, 'OLDTITLE');
    const raw = Buffer.from(pdf).toString('latin1');
    assert.equal(raw.split('%%EOF').length - 1, 1);
    assert.doesNotMatch(raw, /\/Prev\b/);
    assert.match(await pdfToText(pdf), /Current text/);
  });

  await t.test('glyphs spaced by Tc, Tw, Tz and TJ adjustments, and a rotated page: exactly the matched glyphs go', async () => {
    const SPACED = await spacedDocument();
    const pdf = await redacted({ pdf: b64(SPACED), patterns: ['\\d+'], text: ['ALTSECRET'] }, 4);
    const text = await pdfToText(pdf);
    assert.doesNotMatch(text, /\d/, text);
    // 98765 is split over two strings in the input: pdftotext above proves it gone.
    // ALTSECRET is also the /ActualText of the marked content around it: that goes too.
    for (const secret of ['4711', 'SECRET7', 'ALTSECRET']) assertGone(SPACED, pdf, secret);
    // pdftotext groups the widely spaced glyphs into words differently once digits are gone ("e n d" became "end"),
    // so: the same letters, and every word starting where a word started before.
    const before = await wordBoxes(SPACED);
    const after = await wordBoxes(pdf);
    // Page 3: pdftotext reads the /ActualText (only "ALTSECRET") before, the glyphs left ("Tagged") after.
    assert.deepEqual(after.filter((word) => word.page === 3).map((word) => word.word), ['Tagged']);
    const letters = (words: WordBox[]) => words.filter((word) => word.page !== 3).map((word) => word.word.replace(/\d/g, '')).join('');
    assert.equal(letters(after), letters(before));
    const starts = new Set(before.map((word) => `${word.page}@${word.xMin.toFixed(1)},${word.yMin.toFixed(1)}`));
    for (const word of after) assert.ok(starts.has(`${word.page}@${word.xMin.toFixed(1)},${word.yMin.toFixed(1)}`), `${key(word)} moved`);
  });

  await t.test('a hostile pattern runs in linear time: (a+)+$ over a long run of a\'s answers 200, not the timeout', async () => {
    const pdf = await linesDocument(['a'.repeat(60) + 'b', 'a'.repeat(60) + '!']);
    const response = await call({ pdf: b64(pdf), patterns: ['(a+)+$', '(a|aa)+b'] });
    assert.equal(response.status, 200, await response.clone().text());
    // RE2's $ is the end of the text, which ends in "!": only the first line's run of a's and its b is matched.
    assert.equal(response.headers.get('x-redactions'), '1');
  });

  await t.test('an encrypted document: 422 without its password; with it, redacted and written unencrypted', async () => {
    const LOCKED = await encryptedDocument();
    const refused = await call({ pdf: b64(LOCKED), text: ['LOCKSECRET'] });
    assert.equal(refused.status, 422);
    const problem = await readProblem(refused);
    assert.equal(problem.slug, 'pdf-password-required');
    assert.deepEqual(problem.errors?.map((error) => [error.field, error.code]), [['password', 'REQUIRED']]);
    const pdf = await redacted({ pdf: b64(LOCKED), password: 'pw', text: ['LOCKSECRET'] }, 1);
    const info = await withFile(pdf, async (path) => (await run('pdfinfo', [path])).stdout);
    assert.match(info, /^Encrypted:\s+no$/m);
    const text = await pdfToText(pdf);
    assert.match(text, /Locked\s+text/);
    assert.equal(text.includes('LOCKSECRET'), false);
    assert.equal(everyStream(pdf).includes('LOCKSECRET'), false);
  });

  await t.test('an owner-password-only document (empty user password) is redacted without a password, as every reader opens it', async () => {
    const pdf = await redacted({ pdf: b64(await encryptedDocument('')), text: ['LOCKSECRET'] }, 1);
    const text = await pdfToText(pdf);
    assert.match(text, /Locked\s+text/);
    assert.equal(text.includes('LOCKSECRET'), false);
    assert.equal(everyStream(pdf).includes('LOCKSECRET'), false);
  });

  await t.test('nothing found is not an error: X-Redactions 0, and the file still comes back fresh', async () => {
    const pdf = await redacted({ pdf: b64(TEXT), text: ['not in the document'] }, 0);
    assert.match(await pdfToText(pdf), /John Smith/);
    assertGone(TEXT, pdf, 'Report on');
  });

  await t.test('errors: a bad pattern, an area off the page or past the last page, nothing asked, too many matches, a core key', async () => {
    const problem = async (body: unknown, status: number, slug: string, field: string, code: string, apiKey?: string) => {
      const response = await call(body, apiKey);
      assert.equal(response.status, status, await response.clone().text());
      const doc = await readProblem(response);
      assert.equal(doc.slug, slug);
      if (field !== '') assert.deepEqual(doc.errors?.map((error) => [error.field, error.code]), [[field, code]]);
    };
    await problem({ pdf: b64(TEXT), patterns: ['\\d+', '(unclosed'] }, 422, 'validation-failed', 'patterns[1]', 'INVALID_FORMAT');
    await problem({ pdf: b64(TEXT), patterns: ['(?<=x)y'] }, 422, 'validation-failed', 'patterns[0]', 'INVALID_FORMAT');
    await problem({ pdf: b64(TEXT), areas: [{ page: 1, x: 10, y: 10, width: 5, height: 5 }, { page: 1, x: 700, y: 10, width: 50, height: 50 }] }, 422, 'validation-failed', 'areas[1]', 'OUT_OF_RANGE');
    await problem({ pdf: b64(TEXT), areas: [{ page: 3, x: 10, y: 10, width: 5, height: 5 }] }, 422, 'validation-failed', 'areas[0].page', 'OUT_OF_RANGE');
    await problem({ pdf: b64(TEXT), areas: [{ page: 1, x: 10, y: 10, width: 0, height: 5 }] }, 422, 'validation-failed', 'areas[0].width', 'OUT_OF_RANGE');
    await problem({ pdf: b64(TEXT) }, 422, 'validation-failed', 'areas', 'REQUIRED');
    await problem({ pdf: b64(TEXT), text: ['x'], fill_color: 'black' }, 422, 'validation-failed', 'fill_color', 'INVALID_FORMAT');
    // 60 lines of 200 characters: 12,000 single-character matches, past the bound of 10,000.
    const dense = await linesDocument(Array.from({ length: 60 }, (_, i) => String(i % 10).repeat(200)));
    await problem({ pdf: b64(dense), text: ['x'], patterns: ['\\d'] }, 422, 'validation-failed', 'patterns[0]', 'TOO_LARGE');
    await problem({ pdf: b64(new TextEncoder().encode('not a pdf')), text: ['x'] }, 422, 'invalid-pdf-data', 'pdf', 'INVALID_PDF');
    // Forms inside forms multiply: refused once the walk passes its bound, not left to run into the timeout.
    await problem({ pdf: b64(await formBombDocument()), areas: [{ page: 1, x: 0, y: 0, width: 100, height: 100 }] }, 422, 'validation-failed', 'pdf', 'TOO_LARGE');
    await problem({ pdf: b64(TEXT), text: ['x'] }, 403, 'capability-denied', '', '', KEYS.core);
  });
});
