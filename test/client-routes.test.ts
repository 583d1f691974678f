// The typed methods against the real operation routes, in both modes, with
// real inputs and the outputs checked by real tools (fontkit, sharp, qpdf,
// pdftotext). Every method's route is in this build: a 404 is a failure.
// Which edition registers each route is declared below and asserted against
// a core-edition server, so a method whose route is missing cannot pass.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import * as fontkit from 'fontkit';
import sharp from 'sharp';
import { PlatenClient, PlatenProblemError } from '../src/client/index.js';
import { renderPdf, textDocument } from './helpers/http.js';
import { KEYS } from './helpers/keys.js';
import { withFile } from './helpers/pdf-tools.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);
const DEJAVU = readFileSync(join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSans.ttf'));

/** The lowest edition whose server registers each method's route (accelerator spec, section 4). */
const EDITION_OF = {
  subsetFont: 'core',
  compressImage: 'core',
  linearize: 'core',
  extractText: 'pro',
  parse: 'pro',
  compare: 'pro',
  clusterStatus: 'enterprise',
} as const satisfies Record<string, 'core' | 'pro' | 'enterprise'>;

describe('typed methods against the operation routes', () => {
  let s: TestServer;
  let dir: string;
  const clients: Array<[string, PlatenClient]> = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platen-client-routes-'));
    const socketPath = join(dir, 'platen.sock');
    s = await startTestServer({ PLATEN_SOCKET: socketPath });
    clients.push(
      ['remote', new PlatenClient({ baseUrl: s.base, apiKey: KEYS.enterprise, proxy: false })],
      ['sidecar', new PlatenClient({ socketPath, apiKey: KEYS.enterprise })],
    );
  });
  after(async () => {
    for (const [, client] of clients) client.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('subsetFont: DejaVu Sans subset to "Hello"', async () => {
    for (const [mode, client] of clients) {
      const codepoints = [...'Hello'].map((c) => c.codePointAt(0) as number);
      const answer = await client.subsetFont({ font_data: DEJAVU, codepoints });
      const { data } = answer;
      assert.equal(data.original_size_bytes, DEJAVU.byteLength, mode);
      assert.equal(data.subset_size_bytes, data.font_data.byteLength, mode);
      assert.ok(data.font_data.byteLength < DEJAVU.byteLength / 10, `${mode}: ${data.font_data.byteLength} bytes`);
      const font = fontkit.create(data.font_data) as fontkit.Font;
      for (const c of 'Helo') assert.ok(font.hasGlyphForCodePoint(c.codePointAt(0) as number), `${mode}: the subset has ${c}`);
      assert.equal(font.hasGlyphForCodePoint('Z'.codePointAt(0) as number), false, `${mode}: the subset has no Z`);
      assert.match(answer.meta.worker_id, /\S/);
    }
  });

  test('compressImage: a 64 x 48 PNG to a 32 px wide JPEG', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
    for (const [mode, client] of clients) {
      const answer = await client.compressImage({ image_data: png, format: 'jpeg', options: { quality: 60, max_width: 32 } });
      const { data } = answer;
      assert.equal(data.original_size_bytes, png.byteLength, mode);
      assert.equal(data.compressed_size_bytes, data.image_data.byteLength, mode);
      const meta = await sharp(data.image_data).metadata();
      assert.equal(meta.format, 'jpeg', mode);
      assert.deepEqual([meta.width, meta.height, data.width, data.height], [32, 24, 32, 24], mode);
    }
  });

  test('linearize: a rendered PDF comes back linearized (qpdf --check-linearization)', async () => {
    const pdf = await renderPdf(s.base, textDocument('Linearize me', 'A second paragraph'));
    for (const [mode, client] of clients) {
      const answer = await client.linearize({ pdf_data: pdf, options: { optimize_for_web: true } });
      const out = await withFile(answer.data.pdf_data, async (path) => (await run('qpdf', ['--check-linearization', path])).stdout);
      assert.match(out, /no linearization errors/, mode);
    }
  });

  test('extractText: the words of a rendered PDF, where poppler finds them', async () => {
    const pdf = await renderPdf(s.base, textDocument('Extract these words'));
    const poppler = await withFile(pdf, async (path) => (await run('pdftotext', [path, '-'])).stdout.trim());
    for (const [mode, client] of clients) {
      const answer = await client.extractText({ pdf_data: pdf, options: { granularity: 'word' } });
      assert.equal(answer.data.page_count, 1, mode);
      assert.equal(answer.data.pages[0]?.spans.map((span) => span.text).join(' '), poppler, mode);
    }
  });

  test('compare: one changed word between two rendered PDFs is one modification', async () => {
    const a = await renderPdf(s.base, textDocument('Delivery on Friday'));
    const b = await renderPdf(s.base, textDocument('Delivery on Monday'));
    for (const [mode, client] of clients) {
      const answer = await client.compare({ pdf_a: a, pdf_b: b, options: { mode: 'text' } });
      assert.deepEqual(answer.data.changes.map((c) => [c.type, c.page, c.before, c.after]), [['modification', 1, 'Friday', 'Monday']], mode);
      assert.deepEqual(answer.data.summary, { pages_changed: 1, text_additions: 1, text_deletions: 1, image_changes: 0 }, mode);
      assert.equal(answer.data.changes_truncated, false, mode);
    }
  });

  test('parse: the text blocks of a rendered PDF, in reading order', async () => {
    const pdf = await renderPdf(s.base, textDocument('Parse this paragraph', 'And then this one'));
    for (const [mode, client] of clients) {
      const answer = await client.parse({ pdf_data: pdf, options: { extract_tables: false } });
      const blocks = answer.data.pages[0]?.text_blocks.map((block) => block.text.replace(/\s+/g, ' ')).join(' ');
      assert.equal(blocks, 'Parse this paragraph And then this one', mode);
      assert.deepEqual(answer.data.pages[0]?.tables, [], mode);
    }
  });

  test('clusterStatus: the nodes of the cluster', async () => {
    for (const [mode, client] of clients) {
      const answer = await client.clusterStatus();
      assert.equal(answer.data.node_count, answer.data.nodes.length, mode);
      assert.ok(answer.data.healthy_nodes <= answer.data.node_count, mode);
    }
  });
});

describe('routes by edition', () => {
  test('a core edition serves the core methods and answers 404 not-found for the others', async (t) => {
    const s = await startTestServer({ PLATEN_EDITION: 'core' });
    t.after(() => s.close());
    const client = new PlatenClient({ baseUrl: s.base, apiKey: KEYS.core, proxy: false });
    t.after(() => client.close());
    const pdf = await renderPdf(s.base, textDocument('Edition'));
    const calls: Record<keyof typeof EDITION_OF, () => Promise<unknown>> = {
      subsetFont: () => client.subsetFont({ font_data: DEJAVU, codepoints: [72] }),
      compressImage: async () => client.compressImage({ image_data: await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).png().toBuffer(), format: 'jpeg' }),
      linearize: () => client.linearize({ pdf_data: pdf }),
      extractText: () => client.extractText({ pdf_data: pdf }),
      parse: () => client.parse({ pdf_data: pdf }),
      compare: () => client.compare({ pdf_a: pdf, pdf_b: pdf }),
      clusterStatus: () => client.clusterStatus(),
    };
    for (const [method, edition] of Object.entries(EDITION_OF) as Array<[keyof typeof EDITION_OF, string]>) {
      const outcome = await calls[method]().then(
        () => 'served',
        (error: unknown) => (error instanceof PlatenProblemError ? error.slug : error),
      );
      assert.equal(outcome, edition === 'core' ? 'served' : 'not-found', method);
    }
  });
});
