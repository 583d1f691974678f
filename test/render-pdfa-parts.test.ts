// output.pdf_a parts 1 and 3 (issue 15): every golden document (letter,
// invoice, HTML article with a half-transparent image, Unicode document)
// rendered at 1b, 1a, 3b, 3u and 3a claims that level and passes our own
// compliance-check at it; qpdf finds no error; pdfinfo reads PDF 1.4 for
// part 1 (no object or cross-reference streams) and 1.7 for part 3; part 1
// has no soft mask (the alpha flattened onto white). output.attachments
// embeds files pdfdetach lists and extracts byte for byte, in PDF/A-3 and in
// a plain PDF, from a render, a job and a session; a bad attachment, or one
// with part 1 or 2, is a 422 naming the field.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { postJson, readProblem, renderPdf } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { pdfImages, pdfInfo, qpdfCheck, withFile } from './helpers/pdf-tools.js';
import { startTestServer } from './helpers/server.js';
import { article, invoice, letter, unicode } from './helpers/tagged-documents.js';
import { waitFor } from './helpers/wait.js';

const run = promisify(execFile);

interface Report {
  standard: string;
  claimed: string | null;
  compliant: boolean;
  failures: Array<{ rule: string; sample?: string }>;
}

const INVOICE_XML = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">' +
    '<rsm:ExchangedDocument><ram:ID xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">2026-042 Straße</ram:ID></rsm:ExchangedDocument></rsm:CrossIndustryInvoice>\n',
  'utf8',
);
/** Bytes no text tool would keep intact: every byte value, twice. */
const BINARY = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));

const attachments = () => [
  { name: 'factur-x.xml', data: INVOICE_XML.toString('base64'), mime_type: 'text/xml', relationship: 'Alternative', description: 'Factur-X invoice data' },
  { name: 'Übersicht 2026.bin', data: BINARY.toString('base64'), mime_type: 'application/octet-stream', relationship: 'Supplement' },
];

/** pdfdetach -list's names, and each file as pdfdetach -saveall writes it. */
async function detach(pdf: Uint8Array): Promise<{ names: string[]; files: Map<string, Buffer> }> {
  return withFile(pdf, async (path) => {
    const listed = (await run('pdfdetach', ['-enc', 'UTF-8', '-list', path])).stdout;
    const names = listed.split('\n').slice(1).flatMap((line) => /^\d+: (.*)$/.exec(line)?.slice(1) ?? []);
    const dir = `${path}.files`;
    await mkdir(dir);
    await run('pdfdetach', ['-enc', 'UTF-8', '-saveall', '-o', dir, path]);
    const files = new Map<string, Buffer>();
    for (const name of names) files.set(name, await readFile(join(dir, name)));
    return { names, files };
  });
}

test('render with output.pdf_a parts 1 and 3, and output.attachments', async (t) => {
  const server = await startTestServer({ PLATEN_SESSIONS_ENABLED: 'true' });
  t.after(() => server.close());
  const check = async (pdf: Uint8Array, standard?: string): Promise<Report> => {
    const response = await postJson(server.base, '/api/v1/compliance-check', { pdf: Buffer.from(pdf).toString('base64'), ...(standard === undefined ? {} : { standard }) }, bearer(KEYS.enterprise));
    assert.equal(response.status, 200, await response.clone().text());
    return ((await response.json()) as { data: Report }).data;
  };
  // A half-transparent red square: a soft mask in parts 2 and 3, flattened in part 1.
  const png = (await sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 200, g: 0, b: 0, alpha: 0.5 } } }).png().toBuffer()).toString('base64');
  const documents = { letter: letter(), invoice: invoice(), article: article(png), unicode: unicode() };

  for (const level of ['1b', '1a', '3b', '3u', '3a'] as const) {
    await t.test(`pdf_a ${level}: every golden document claims and passes PDF/A-${level}, qpdf clean, PDF ${level.startsWith('1') ? '1.4' : '1.7'}`, async () => {
      for (const [name, document] of Object.entries(documents)) {
        const pdf = await renderPdf(server.base, { ...document, output: { pdf_a: level } });
        const report = await check(pdf);
        assert.equal(report.claimed, `pdfa-${level}`, name);
        assert.equal(report.standard, `pdfa-${level}`, name);
        assert.deepEqual(report.failures, [], name);
        assert.equal(report.compliant, true, name);
        await qpdfCheck(pdf);
        const info = await pdfInfo(pdf);
        assert.equal(info['PDF version'], level.startsWith('1') ? '1.4' : '1.7', name);
        assert.equal(info.Tagged, level.endsWith('a') ? 'yes' : 'no', name);
        if (level.startsWith('1')) {
          // PDF 1.4: a cross-reference table, no object streams.
          const text = Buffer.from(pdf).toString('latin1');
          assert.doesNotMatch(text, /\/ObjStm|\/Type\s*\/XRef/, name);
          assert.match(text, /\nxref\n/, name);
        }
      }
    });
  }

  await t.test('the image with alpha: a soft mask at 3b, none at 1b (flattened onto white); the 3b file fails PDF/A-1b on it (6.4-2)', async () => {
    const request = (level: string) => ({ ...documents.article, output: { pdf_a: level } });
    const part3 = await renderPdf(server.base, request('3b'));
    assert.ok((await pdfImages(part3)).some((image) => image.type === 'smask'));
    const part1 = await renderPdf(server.base, request('1b'));
    const images = await pdfImages(part1);
    assert.ok(images.length > 0);
    assert.ok(images.every((image) => image.type === 'image'), JSON.stringify(images));
    const rules = (await check(part3, 'pdfa-1b')).failures.map((failure) => failure.rule);
    for (const rule of ['6.4-2', '6.1.4-3', '6.3.5-3']) assert.ok(rules.includes(rule), rules.join(' '));
  });

  await t.test('part 1 flattens alpha onto white (red at half alpha prints pink) and writes 16-bit samples as 8-bit', async () => {
    const placed = (data: string) => ({ output: { pdf_a: '1b' }, margin: 0, operations: [{ type: 'add_image', data, x: 0, y: 0, width: 100, height: 100 }] });
    const pdf = await renderPdf(server.base, placed(png));
    const page = await withFile(pdf, async (path) => {
      await run('pdftoppm', ['-r', '72', '-singlefile', '-png', path, path]);
      return readFile(`${path}.png`);
    });
    const pixel = [...(await sharp(page).extract({ left: 50, top: 50, width: 1, height: 1 }).removeAlpha().raw().toBuffer())];
    // 200 × 0.5 + 255 × 0.5 = 227.5; 0 × 0.5 + 255 × 0.5 = 127.5.
    assert.ok(pixel.every((value, i) => Math.abs(value - [227.5, 127.5, 127.5][i]!) <= 2), String(pixel));
    const deep = (await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 200, g: 0, b: 0 } } }).toColourspace('rgb16').png().toBuffer()).toString('base64');
    const listed = await withFile(await renderPdf(server.base, placed(deep)), async (path) => (await run('pdfimages', ['-list', path])).stdout);
    // pdfimages -list: page, num, type, width, height, color, comp, bpc, ...
    assert.deepEqual(listed.split('\n').slice(2, -1).map((line) => line.trim().split(/\s+/).slice(2, 8).join(' ')), ['image 8 8 rgb 3 8']);
  });

  await t.test('attachments in PDF/A-3b: pdfdetach lists and extracts them byte for byte; compliance-check passes 3b', async () => {
    const pdf = await renderPdf(server.base, { ...documents.invoice, output: { pdf_a: '3b', attachments: attachments() } });
    const report = await check(pdf);
    assert.equal(report.claimed, 'pdfa-3b');
    assert.deepEqual(report.failures, []);
    await qpdfCheck(pdf);
    const { names, files } = await detach(pdf);
    assert.deepEqual(names.sort(), ['factur-x.xml', 'Übersicht 2026.bin'].sort());
    assert.deepEqual(files.get('factur-x.xml'), INVOICE_XML);
    assert.deepEqual(files.get('Übersicht 2026.bin'), BINARY);
    // What PDF/A-3 asks of each (ISO 19005-3 6.8), as written: MIME Subtype, ModDate, AFRelationship, listed in the catalog's AF.
    const text = await withFile(pdf, async (path) => (await run('qpdf', ['--qdf', '--object-streams=disable', path, '-'], { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 })).stdout);
    assert.match(text, /\/Subtype \/text#2fxml/i);
    assert.match(text, /\/AFRelationship \/Alternative/);
    assert.match(text, /\/AFRelationship \/Supplement/);
    assert.match(text, /\/ModDate \(D:\d{14}/);
    assert.match(text, /\/AF \[/);
  });

  await t.test('output.factur_x: the XMP names the attached XML and its profile, with the Factur-X extension schema; 3u and 3a (with the PDF/UA schema beside it) pass', async () => {
    for (const level of ['3u', '3a'] as const) {
      const pdf = await renderPdf(server.base, { ...documents.invoice, output: { pdf_a: level, attachments: attachments(), factur_x: { profile: 'EN 16931' } } });
      const report = await check(pdf);
      assert.equal(report.claimed, `pdfa-${level}`);
      assert.deepEqual(report.failures, [], level);
      const xmp = await withFile(pdf, async (path) => (await run('pdfinfo', ['-meta', path])).stdout);
      assert.match(xmp, /<fx:DocumentType>INVOICE<\/fx:DocumentType><fx:DocumentFileName>factur-x\.xml<\/fx:DocumentFileName><fx:Version>1\.0<\/fx:Version><fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
      // One pdfaExtension:schemas property describing every schema used (two would be the property given twice).
      assert.equal(xmp.match(/<pdfaExtension:schemas>/g)?.length, 1);
      assert.equal(xmp.match(/<pdfaSchema:prefix>fx<\/pdfaSchema:prefix>/g)?.length, 1);
      if (level === '3a') assert.match(xmp, /<pdfaSchema:prefix>pdfuaid<\/pdfaSchema:prefix>/);
    }
  });

  await t.test('attachments without pdf_a: a plain PDF carries them the same way', async () => {
    const pdf = await renderPdf(server.base, { operations: [{ type: 'add_text', text: 'see attached' }], output: { attachments: attachments().slice(0, 1) } });
    const { names, files } = await detach(pdf);
    assert.deepEqual(names, ['factur-x.xml']);
    assert.deepEqual(files.get('factur-x.xml'), INVOICE_XML);
  });

  await t.test('a job with pdf_a 3u and an attachment, and a session with pdf_a 1a: each passes its level', async () => {
    const submitted = await postJson(server.base, '/api/v1/jobs', { ...documents.letter, output: { pdf_a: '3u', attachments: attachments().slice(0, 1) } }, bearer(KEYS.enterprise));
    assert.equal(submitted.status, 201, await submitted.clone().text());
    const id = ((await submitted.json()) as { data: { job_id: string } }).data.job_id;
    let status = '';
    await waitFor(async () => {
      const polled = await fetch(`${server.base}/api/v1/jobs/${id}`, { headers: bearer(KEYS.enterprise) });
      status = ((await polled.json()) as { data: { status: string } }).data.status;
      return status === 'completed' || status === 'failed';
    }, { timeoutMs: 30_000, what: 'the job finishing' });
    assert.equal(status, 'completed');
    const result = new Uint8Array(await (await fetch(`${server.base}/api/v1/jobs/${id}/result`, { headers: bearer(KEYS.enterprise) })).arrayBuffer());
    const report = await check(result);
    assert.equal(report.claimed, 'pdfa-3u');
    assert.deepEqual(report.failures, []);
    assert.deepEqual((await detach(result)).files.get('factur-x.xml'), INVOICE_XML);

    const created = await postJson(server.base, '/api/v1/sessions', { metadata: { title: 'Quote', language: 'en-GB' }, output: { pdf_a: '1a' } }, bearer(KEYS.enterprise));
    assert.equal(created.status, 201, await created.clone().text());
    const session = ((await created.json()) as { data: { session_id: string } }).data.session_id;
    const added = await postJson(server.base, `/api/v1/sessions/${session}/text`, { text: 'Quote for two bearings' }, bearer(KEYS.enterprise));
    assert.equal(added.status, 200, await added.clone().text());
    const rendered = await fetch(`${server.base}/api/v1/sessions/${session}/render`, { method: 'POST', headers: bearer(KEYS.enterprise) });
    assert.equal(rendered.status, 200);
    const sessionReport = await check(new Uint8Array(await rendered.arrayBuffer()));
    assert.equal(sessionReport.claimed, 'pdfa-1a');
    assert.deepEqual(sessionReport.failures, []);

    // A session's output holds its attachments from creation to the render.
    const filed = await postJson(server.base, '/api/v1/sessions', { output: { pdf_a: '3b', attachments: attachments().slice(0, 1) } }, bearer(KEYS.enterprise));
    assert.equal(filed.status, 201, await filed.clone().text());
    const second = ((await filed.json()) as { data: { session_id: string } }).data.session_id;
    assert.equal((await postJson(server.base, `/api/v1/sessions/${second}/text`, { text: 'Invoice 2026-042' }, bearer(KEYS.enterprise))).status, 200);
    const invoiced = new Uint8Array(await (await fetch(`${server.base}/api/v1/sessions/${second}/render`, { method: 'POST', headers: bearer(KEYS.enterprise) })).arrayBuffer());
    assert.deepEqual((await check(invoiced)).failures, []);
    assert.deepEqual((await detach(invoiced)).files.get('factur-x.xml'), INVOICE_XML);
  });

  const problem = async (body: unknown, path = '/api/v1/render') => {
    const read = await readProblem(await postJson(server.base, path, body, bearer(KEYS.enterprise)));
    assert.equal(read.status, 422);
    assert.equal(read.slug, 'validation-failed');
    return read.errors?.map((e) => `${e.field} ${e.code}`);
  };
  const operations = [{ type: 'add_text', text: 'x' }];
  const file = attachments()[0] as Record<string, unknown>;

  await t.test('a bad attachment is a 422 naming its field', async () => {
    assert.deepEqual(await problem({ operations, output: { pdf_a: '2b', attachments: [file] } }), ['output.attachments INVALID_VALUE']);
    assert.deepEqual(await problem({ operations, output: { pdf_a: '1b', attachments: [file] } }), ['output.attachments INVALID_VALUE']);
    assert.deepEqual(await problem({ operations, output: { attachments: [{ ...file, mime_type: 'xml' }] } }), ['output.attachments[0].mime_type INVALID_FORMAT']);
    assert.deepEqual(await problem({ operations, output: { attachments: [{ ...file, relationship: 'Owner' }] } }), ['output.attachments[0].relationship INVALID_ENUM']);
    const { relationship: _, ...withoutRelationship } = file;
    assert.deepEqual(await problem({ operations, output: { attachments: [withoutRelationship] } }), ['output.attachments[0].relationship REQUIRED']);
    assert.deepEqual(await problem({ operations, output: { attachments: [{ ...file, name: '../etc/passwd' }] } }), ['output.attachments[0].name INVALID_VALUE']);
    assert.deepEqual(await problem({ operations, output: { attachments: [{ ...file, name: '' }] } }), ['output.attachments[0].name TOO_SHORT']);
    assert.deepEqual(await problem({ operations, output: { attachments: [{ ...file, data: 'not base64!' }] } }), ['output.attachments[0].data INVALID_FORMAT']);
    assert.deepEqual(await problem({ operations, output: { attachments: [{ ...file, size: 3 }] } }), ['output.attachments[0].size UNKNOWN_FIELD']);
    // Two files of one name: a reader could list and extract only one. A job is refused at submission.
    assert.deepEqual(await problem({ operations, output: { attachments: [file, file] } }), ['output.attachments[1].name DUPLICATE']);
    assert.deepEqual(await problem({ operations, output: { attachments: [file, file] } }, '/api/v1/jobs'), ['output.attachments[1].name DUPLICATE']);
    // Factur-X: PDF/A-3 only, and its file_name must be one of the attachments.
    assert.deepEqual(await problem({ operations, output: { pdf_a: '2b', factur_x: { profile: 'BASIC' } } }), ['output.factur_x INVALID_VALUE', 'output.factur_x.file_name INVALID_VALUE']);
    assert.deepEqual(await problem({ operations, output: { pdf_a: '3b', attachments: [file], factur_x: { profile: 'BASIC', file_name: 'zugferd-invoice.xml' } } }), ['output.factur_x.file_name INVALID_VALUE']);
    assert.deepEqual(await problem({ operations, output: { pdf_a: '3b', attachments: [file], factur_x: { profile: 'COMFORT' } } }), ['output.factur_x.profile INVALID_ENUM']);
  });

  await t.test('level A of parts 1 and 3 is tagged: tagged false is a 422, and so are a missing title and a 1a language tag with digits', async () => {
    assert.deepEqual(await problem({ operations, metadata: { title: 'T', language: 'en' }, output: { pdf_a: '1a', tagged: false } }), ['output.tagged INVALID_VALUE']);
    assert.deepEqual(await problem({ operations, metadata: { language: 'en' }, output: { pdf_a: '3a' } }), ['metadata.title REQUIRED']);
    assert.deepEqual(await problem({ operations, metadata: { title: 'T', language: 'es-419' }, output: { pdf_a: '1a' } }), ['metadata.language INVALID_VALUE']);
    // RFC 3066 allows the digits: PDF/A-2a and 3a take it.
    const pdf = await renderPdf(server.base, { operations, metadata: { title: 'T', language: 'es-419' }, output: { pdf_a: '3a' } });
    assert.deepEqual((await check(pdf)).failures, []);
    assert.deepEqual(await problem({ operations, output: { pdf_a: '4b' } }), ['output.pdf_a INVALID_ENUM']);
  });
});
