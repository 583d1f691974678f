// Fonts from clients: family names, damaged font data, invisible characters
// and the worker's font caches. Damaged fonts are made here from the bundled
// DejaVuSans by rewriting its table directory, so no binary fixture is needed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as fontkit from 'fontkit';
import { createDocument, FontError } from '../workers/seams/pdf.js';
import { postJson, readProblem, textDocument, renderPdf } from './helpers/http.js';
import { pdfFonts, pdfInfo, pdfToText, qpdfCheck } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { fontToolsWebFont, NOTO_CJK_TTC } from './helpers/font-tools.js';

const DEJAVU = readFileSync(join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSans.ttf'));

/** The font's tables by tag, in file order. */
function tablesOf(font: Buffer): Map<string, Buffer> {
  const tables = new Map<string, Buffer>();
  for (let i = 0; i < font.readUInt16BE(4); i++) {
    const record = 12 + 16 * i;
    const offset = font.readUInt32BE(record + 8);
    tables.set(font.toString('latin1', record, record + 4), font.subarray(offset, offset + font.readUInt32BE(record + 12)));
  }
  return tables;
}

/** An sfnt file of these tables, in map order, each 4-byte aligned (checksums left 0: fontkit and pdf-lib do not read them). */
function sfnt(tables: Map<string, Buffer>, signature = DEJAVU.subarray(0, 4)): Buffer {
  const directory = Buffer.alloc(12 + 16 * tables.size);
  signature.copy(directory);
  directory.writeUInt16BE(tables.size, 4);
  const parts = [directory];
  let offset = directory.length;
  [...tables].forEach(([tag, data], i) => {
    directory.write(tag, 12 + 16 * i, 'latin1');
    directory.writeUInt32BE(offset, 12 + 16 * i + 8);
    directory.writeUInt32BE(data.length, 12 + 16 * i + 12);
    const padded = Buffer.alloc(Math.ceil(data.length / 4) * 4);
    data.copy(padded);
    parts.push(padded);
    offset += padded.length;
  });
  return Buffer.concat(parts);
}

/** DejaVuSans with its tables edited. */
function dejavuWith(edit: (tables: Map<string, Buffer>) => void): Buffer {
  const tables = tablesOf(DEJAVU);
  edit(tables);
  return sfnt(tables);
}

/** A cmap of one format 12 subtable (Windows, UCS-4) with one group. */
function cmap12(first: number, last: number, glyph: number): Buffer {
  const cmap = Buffer.alloc(12 + 28);
  cmap.writeUInt16BE(1, 2);
  cmap.writeUInt16BE(3, 4);
  cmap.writeUInt16BE(10, 6);
  cmap.writeUInt32BE(12, 8);
  cmap.writeUInt16BE(12, 12);
  cmap.writeUInt32BE(28, 16);
  cmap.writeUInt32BE(1, 24);
  cmap.writeUInt32BE(first, 28);
  cmap.writeUInt32BE(last, 32);
  cmap.writeUInt32BE(glyph, 36);
  return cmap;
}

/** A WOFF2 header and directory declaring one `head` table of `declared` bytes, then junk where the Brotli data goes. */
function woff2(declared: number): Buffer {
  const length = [];
  for (let rest = declared; ; rest >>>= 7) {
    length.unshift((rest & 0x7f) | (length.length > 0 ? 0x80 : 0));
    if (rest < 0x80) break;
  }
  const header = Buffer.alloc(48);
  header.write('wOF2', 0, 'latin1');
  header.writeUInt32BE(0x00010000, 4);
  header.writeUInt16BE(1, 12);
  header.writeUInt32BE(declared + 12 + 16, 16);
  header.writeUInt32BE(64, 20);
  const file = Buffer.concat([header, Buffer.from([1, ...length]), Buffer.alloc(64, 0xab)]);
  file.writeUInt32BE(file.length, 8);
  return file;
}

/**
 * DejaVuSans whose glyph for `char` claims 65,535 outline points and is the
 * last glyph with data, in the last table of the file: measuring it reads
 * only its header, but subsetting it (when the PDF is saved) reads past the
 * end of the file.
 */
function brokenOutline(char: string): Buffer {
  const id = (fontkit.create(DEJAVU) as fontkit.Font).glyphForCodePoint(char.codePointAt(0) as number).id;
  const tables = tablesOf(DEJAVU);
  const head = tables.get('head') as Buffer;
  assert.equal(head.readInt16BE(50), 1, 'DejaVuSans has long loca offsets');
  const loca = Buffer.from(tables.get('loca') as Buffer);
  const end = loca.readUInt32BE(4 * (id + 1));
  for (let i = id + 1; i < loca.length / 4; i++) loca.writeUInt32BE(end, 4 * i);
  const glyf = Buffer.from((tables.get('glyf') as Buffer).subarray(0, end));
  const start = loca.readUInt32BE(4 * id);
  glyf.writeInt16BE(1, start);
  glyf.writeUInt16BE(0xfffe, start + 10);
  glyf.writeUInt16BE(0, start + 12);
  tables.set('loca', loca);
  tables.delete('glyf');
  tables.set('glyf', glyf);
  return sfnt(tables);
}

const withFont = (font: Buffer, text = 'hi', family = 'Client') => ({
  operations: [
    { type: 'set_font', family, data: font.toString('base64') },
    { type: 'add_text', text },
  ],
});

/** V8's collector for this process (tests run without --expose-gc), for memory assertions. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('font families', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test("names of Object.prototype's members are unknown families (422), not a crash", async () => {
    for (const family of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']) {
      const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'set_font', family }, { type: 'add_text', text: 'hi' }] });
      assert.equal(response.status, 422, family);
      const problem = await readProblem(response);
      assert.equal(problem.slug, 'validation-failed');
      assert.deepEqual({ field: problem.errors?.[0]?.field, code: problem.errors?.[0]?.code }, { field: 'operations[0].family', code: 'UNKNOWN_FONT' }, family);
    }
  });

  test('such a name is free for a custom family', async () => {
    const response = await postJson(s.base, '/api/v1/render', withFont(DEJAVU, 'Constructed', 'constructor'));
    assert.equal(response.status, 200, await response.clone().text());
    assert.match(await pdfToText(new Uint8Array(await response.arrayBuffer())), /Constructed/);
  });

  test('standard names in any case are the standard fonts: drawn without data, and refused as a custom family', async () => {
    const pdf = await renderPdf(s.base, {
      operations: [
        { type: 'set_font', family: 'helvetica', bold: true },
        { type: 'add_text', text: 'family' },
        { type: 'set_font', family: 'times-italic' },
        { type: 'add_text', text: 'font name' },
      ],
    });
    assert.deepEqual((await pdfFonts(pdf)).map((font) => font.name).sort(), ['Helvetica-Bold', 'Times-Italic']);
    for (const family of ['helvetica', 'COURIER-BOLD']) {
      const response = await postJson(s.base, '/api/v1/render', withFont(DEJAVU, 'x', family));
      assert.equal(response.status, 422, family);
      assert.deepEqual((await readProblem(response)).errors?.map((error) => [error.field, error.code]), [['operations[0].family', 'INVALID_VALUE']], family);
    }
  });
});

describe('damaged font data', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  async function assertInvalidFont(font: Buffer, label: string): Promise<string> {
    const response = await postJson(s.base, '/api/v1/render', withFont(font));
    assert.equal(response.status, 422, `${label}: ${await response.clone().text()}`);
    const problem = await readProblem(response);
    assert.deepEqual({ field: problem.errors?.[0]?.field, code: problem.errors?.[0]?.code }, { field: 'operations[0].data', code: 'INVALID_FONT' }, label);
    return problem.errors?.[0]?.message ?? '';
  }

  test('the fonts made here are sound when left intact, and optional tables may go', async () => {
    for (const [label, font] of [
      ['rebuilt', dejavuWith(() => {})],
      ['without name, OS/2, GSUB, GPOS, kern', dejavuWith((tables) => ['name', 'OS/2', 'GSUB', 'GPOS', 'kern'].forEach((tag) => tables.delete(tag)))],
    ] as const) {
      const response = await postJson(s.base, '/api/v1/render', withFont(font, 'Intact'));
      assert.equal(response.status, 200, `${label}: ${await response.clone().text()}`);
      const pdf = new Uint8Array(await response.arrayBuffer());
      await qpdfCheck(pdf);
      assert.match(await pdfToText(pdf), /Intact/, label);
    }
  });

  test('a font without a table fontkit or pdf-lib needs is 422 INVALID_FONT naming the table', async () => {
    for (const tag of ['head', 'hhea', 'hmtx', 'maxp', 'post', 'cmap', 'glyf', 'loca']) {
      // The table directory no longer lists it.
      const message = await assertInvalidFont(dejavuWith((tables) => tables.delete(tag)), `without ${tag}`);
      assert.match(message, tag === 'glyf' ? /outlines/ : new RegExp(`'${tag}'`), message);
    }
  });

  test('a truncated glyf table is 422 INVALID_FONT', async () => {
    for (const length of [1000, 100_000]) {
      await assertInvalidFont(dejavuWith((tables) => tables.set('glyf', (tables.get('glyf') as Buffer).subarray(0, length))), `glyf cut to ${length} bytes`);
    }
    await assertInvalidFont(DEJAVU.subarray(0, 300_000), 'file cut inside glyf');
  });

  test('a format 12 cmap claiming all of Unicode is 422 INVALID_FONT, not a stack overflow', async () => {
    await assertInvalidFont(dejavuWith((tables) => tables.set('cmap', cmap12(0, 0x10ffff, 0))), 'cmap 0-10FFFF');
  });

  test('WOFF2 that does not decode is 422 INVALID_FONT; one claiming more than a font may have is refused before anything is decompressed', async () => {
    assert.match(await assertInvalidFont(woff2(1000), 'WOFF2'), /WOFF2/);
    // 1.5 KB declaring a 1 GiB table: fontkit allocated the declared size outside the V8 heap.
    const bomb = Buffer.concat([woff2(2 ** 30), Buffer.alloc(1400, 0xcd)]);
    const response = await postJson(s.base, '/api/v1/render', withFont(bomb));
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.deepEqual({ field: problem.errors?.[0]?.field, code: problem.errors?.[0]?.code }, { field: 'operations[0].data', code: 'TOO_LONG' });
    assert.match(problem.errors?.[0]?.message ?? '', /WOFF2 font declares \d+ bytes unpacked, over the \d+-byte limit/);
  });

  test('a glyph that breaks only when subset is 422 INVALID_FONT', async () => {
    const response = await postJson(s.base, '/api/v1/render', withFont(brokenOutline('z'), 'z'));
    assert.equal(response.status, 422, await response.clone().text());
    const problem = await readProblem(response);
    assert.equal(problem.errors?.[0]?.code, 'INVALID_FONT');
    // Our words in the response; pdf-lib's or fontkit's in the log only (issue 9).
    for (const text of [problem.detail, problem.errors?.[0]?.message ?? '']) assert.doesNotMatch(text, /\(|Error|bounds|undefined|offset/, text);
    const line = s.logs.find((l) => l.msg === 'request' && l.status === 422 && typeof l.cause === 'string');
    assert.ok(line !== undefined && String(line.cause).length > 0, 'the library\'s message is logged as the cause');
  });
});

describe('font data as it is shipped: WOFF, WOFF2 and collections', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  /** The PDF of a text in the font sent as `data` (with `face_index` when given), and its one embedded font. */
  async function rendered(data: Uint8Array, text: string, faceIndex?: number) {
    const pdf = await renderPdf(s.base, { operations: [{ type: 'set_font', family: 'Shipped', data: Buffer.from(data).toString('base64'), ...(faceIndex === undefined ? {} : { face_index: faceIndex }) }, { type: 'add_text', text }] });
    const [font, ...others] = await pdfFonts(pdf);
    assert.equal(others.length, 0);
    return { text: await pdfToText(pdf), font };
  }

  test('a WOFF or WOFF2 web font renders as the font it wraps', async () => {
    for (const flavor of ['woff', 'woff2'] as const) {
      const { text, font } = await rendered(await fontToolsWebFont(DEJAVU, flavor, 'Web fonts work'), 'Web fonts work');
      assert.match(text, /Web fonts work/, flavor);
      assert.match(font?.name ?? '', /^[A-Z]{6}\+DejaVuSans$/, flavor);
      assert.equal(font?.embedded, true, flavor);
    }
  });

  test('a collection renders the face face_index names, the first by default; a face past the last is 422 OUT_OF_RANGE', async () => {
    const collection = readFileSync(NOTO_CJK_TTC);
    const first = await rendered(collection, '你好');
    assert.match(first.font?.name ?? '', /^[A-Z]{6}\+NotoSansCJKjp-Regular$/);
    assert.match(first.text, /你好/);
    const korean = await rendered(collection, '안녕하세요', 1);
    assert.match(korean.font?.name ?? '', /^[A-Z]{6}\+NotoSansCJKkr-Regular$/);
    assert.match(korean.text, /안녕하세요/);
    const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'set_font', family: 'Shipped', data: collection.toString('base64'), face_index: 99 }, { type: 'add_text', text: 'x' }] });
    assert.equal(response.status, 422);
    const problem = await readProblem(response);
    assert.deepEqual(problem.errors?.map((error) => [error.field, error.code, error.message]), [['operations[0].face_index', 'OUT_OF_RANGE', 'must be below 10: the collection has 10 faces']]);
  });

  test('face_index without data is 422 on face_index: it chooses a face of the font sent', async () => {
    const response = await postJson(s.base, '/api/v1/render', { operations: [{ type: 'set_font', family: 'Helvetica', face_index: 1 }, { type: 'add_text', text: 'x' }] });
    assert.equal(response.status, 422);
    assert.deepEqual((await readProblem(response)).errors?.map((error) => [error.field, error.code]), [['operations[0].face_index', 'INVALID_VALUE']]);
  });
});

describe('the PDF seam and damaged fonts', () => {
  test('a glyph that breaks only when subset makes save() reject with FontError', async () => {
    const doc = await createDocument({ compress: true });
    const font = await doc.customFont(brokenOutline('z'));
    // Measuring reads the glyph's header only, so it works; saving subsets the outline.
    assert.ok(font.widthOf('z', 12) > 0);
    doc.addPage({ width: 100, height: 100, operators: `BT /${font.key} 12 Tf ${font.encode('z')} Tj ET`, fonts: [font], images: [], links: [] });
    await assert.rejects(doc.save(), (error) => error instanceof FontError && /cannot be embedded/.test(error.message));
  });
});

describe('default-ignorable characters', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const render = (body: unknown): Promise<Uint8Array> => renderPdf(s.base, body);

  test('are neither drawn nor measured: zero-width, joiners, soft hyphen, bidi controls, variation selectors', async () => {
    const text = 'a\u200Bb\u200Cc\u200Dd\u2060e\uFEFFf\u00ADg\u034Fh\uFE0Fi\u200Ej\u202Ak\u202Cl\u2066m\u2069n\u061Co';
    assert.equal((await pdfToText(await render(textDocument(text)))).trim(), 'abcdefghijklmno');
    assert.equal((await pdfToText(await render(withFont(DEJAVU, text)))).trim(), 'abcdefghijklmno', 'in a custom font');
  });

  test('a million zero-width spaces take no room', async () => {
    const pdf = await render(textDocument(`a${'\u200B'.repeat(999_999)}`));
    assert.equal((await pdfInfo(pdf)).Pages, '1');
    assert.equal((await pdfToText(pdf)).trim(), 'a');
  });

  test('a text of nothing else lays out as empty, and loads no fallback font', async () => {
    const pdf = await render(textDocument('\u200B\u200D\u00AD\uFE0F'));
    await qpdfCheck(pdf);
    assert.equal((await pdfToText(pdf)).trim(), '');
    assert.deepEqual(await pdfFonts(pdf), []);
  });
});

describe('font caches', () => {
  test('distinct fonts sent in turn stay within a small worker: the decoded-font cache counts its base64 keys', async (t) => {
    // Kept by decoded bytes only (128 MiB), the cache also held ~170 MB of base64 keys on the heap of a 128 MB worker.
    const s = await startTestServer({ PLATEN_WORKERS: '1', PLATEN_WORKER_MEMORY_MB: '128' });
    t.after(() => s.close());
    for (let i = 0; i < 10; i++) {
      const font = dejavuWith((tables) => tables.set('zzzz', Buffer.alloc(16 * 1024 * 1024, i + 1)));
      const response = await postJson(s.base, '/api/v1/render', withFont(font, `font ${i}`));
      const body = Buffer.from(await response.arrayBuffer());
      assert.equal(response.status, 200, `font ${i}: ${body.toString('utf8', 0, 300)}`);
    }
  });

  test('parsed fonts are bounded by their bytes, not only by their number', async () => {
    const gc = collector();
    gc();
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 12; i++) {
      const doc = await createDocument({ compress: true });
      await doc.customFont(dejavuWith((tables) => tables.set('zzzz', Buffer.alloc(20 * 1024 * 1024, i + 1))));
    }
    gc();
    const kept = (process.memoryUsage().arrayBuffers - before) / 2 ** 20;
    // 12 fonts of 20 MiB; the cache keeps at most 128 MiB of them.
    assert.ok(kept < 180, `${kept.toFixed(0)} MiB of font data kept`);
  });

  test('layouts of long texts are not memoized for the worker lifetime', async () => {
    const gc = collector();
    const doc = await createDocument({ compress: true });
    const font = await doc.customFont(DEJAVU);
    font.widthOf('warm', 12);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 6; i++) {
      let word = '';
      for (let j = 0; j < 100_000; j++) word += String.fromCharCode(97 + ((i * 7 + j * 13 + (j >> 5)) % 26));
      font.widthOf(word, 12);
    }
    gc();
    const kept = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    // Each 100,000-character layout is ~7 MB of glyph runs.
    assert.ok(kept < 12, `${kept.toFixed(0)} MiB kept`);
  });
});
