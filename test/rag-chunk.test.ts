// POST /v1/rag/chunk end to end: documents rendered by the server itself
// (headings set large, paragraphs of known sentences, a ruled table, an
// outline-free document and one with several pages), chunked through the
// real pipeline and checked against the contract and against the sentences
// that went in: no chunk cuts a sentence, every sentence lands in a chunk,
// chunks stay within the size, and the heading path is the one written.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYS, bearer } from './helpers/keys.js';
import { assertMatchesContract, loadContract, type Contract, type Node } from './helpers/openapi.js';
import { readProblem, renderPdf } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { chunkElements, type Strategy } from '../workers/rag/chunk.js';
import type { Element } from '../workers/rag/document.js';
import { countTokens, loadTokenizer } from '../workers/seams/tokenizer.js';
import { sentences } from '../workers/rag/sentences.js';

const PATH = '/v1/rag/chunk';

interface Chunk {
  chunk_id: string;
  text: string;
  page: number;
  section: string;
  token_count: number;
  metadata: { headings_path: string[]; is_table: boolean; language: string | null };
}

interface Data {
  document_id: string;
  page_count: number;
  language: string | null;
  tokenizer: string;
  chunk_count: number;
  chunks: Chunk[];
}

let s: TestServer;
let accel: Contract;

const TOPICS = ['harbour', 'lighthouse', 'granary', 'orchard', 'foundry', 'observatory'];

/** Sentence `i` of a topic: distinct, each ending with a full stop, about twenty tokens. */
function sentence(topic: string, i: number): string {
  return `The ${topic} ledger records entry number ${i + 1}, which notes that the ${topic} crew checked item ${i * 7 + 3} before the evening bell.`;
}

function paragraph(topic: string, from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => sentence(topic, from + i)).join(' ');
}

/** Two chapters with two sections each: headings at 20 and 15 pt over 10 pt body text, several paragraphs per section. */
function handbook(): unknown {
  const operations: Record<string, unknown>[] = [];
  const heading = (text: string, size: number) => {
    operations.push({ type: 'set_font', family: 'Helvetica', bold: true, size });
    operations.push({ type: 'add_text', text });
  };
  const body = (text: string) => {
    operations.push({ type: 'set_font', family: 'Times', bold: false, size: 10 });
    operations.push({ type: 'add_text', text });
  };
  heading('Harbour Operations', 20);
  heading('Harbour Duties', 15);
  for (let p = 0; p < 4; p++) body(paragraph('harbour', p * 6, 6));
  heading('Lighthouse Watch', 15);
  for (let p = 0; p < 4; p++) body(paragraph('lighthouse', p * 6, 6));
  heading('Stores and Works', 20);
  heading('Granary Accounts', 15);
  for (let p = 0; p < 3; p++) body(paragraph('granary', p * 6, 6));
  heading('Foundry Shifts', 15);
  for (let p = 0; p < 3; p++) body(paragraph('foundry', p * 6, 6));
  return { page_size: 'A4', operations };
}

async function call(body: unknown, key: string = KEYS.enterprise): Promise<Response> {
  return fetch(`${s.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(key) }, body: JSON.stringify(body) });
}

async function chunk(pdf: Uint8Array, options: Record<string, unknown> = {}): Promise<Data> {
  const response = await call({ pdf_data: Buffer.from(pdf).toString('base64'), options });
  const body = (await assertMatchesContract(accel, 'post', PATH, response)) as Node;
  assert.equal(response.status, 200, JSON.stringify(body).slice(0, 600));
  return body.data as unknown as Data;
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('POST /v1/rag/chunk', () => {
  let pdf: Uint8Array;
  before(async () => {
    s = await startTestServer();
    accel = await loadContract('accel');
    pdf = await renderPdf(s.base, handbook());
  });
  after(() => s.close());

  test('semantic chunks follow the headings, keep every sentence whole and stay within the size', async () => {
    const data = await chunk(pdf, { max_chunk_size: 128, chunk_overlap: 0 });
    assert.equal(data.chunk_count, data.chunks.length);
    assert.equal(data.language, 'en');
    assert.match(data.tokenizer, /^o200k_base/);
    assert.match(data.document_id, /^doc_[0-9a-f]{32}$/);
    for (const c of data.chunks) {
      assert.ok(c.token_count <= 128, `${c.token_count} tokens: ${c.text.slice(0, 80)}`);
      assert.equal(c.metadata.is_table, false);
      assert.equal(c.section, c.metadata.headings_path.at(-1));
      // Every sentence in a chunk is one the document holds, whole: none was cut.
      const body = squash(c.text.replace(/^(Harbour Duties|Lighthouse Watch|Granary Accounts|Foundry Shifts)\s+/, ''));
      for (const piece of body.split(/(?<=bell\.)\s+/)) {
        const topic = TOPICS.find((t) => piece.includes(`The ${t} ledger`));
        assert.ok(topic !== undefined && /^The \w+ ledger records entry number \d+, which notes that the \w+ crew checked item \d+ before the evening bell\.$/.test(piece), `cut sentence: "${piece}"`);
        // Sentences sit under their own section.
        assert.ok(c.section.toLowerCase().startsWith(topic === 'harbour' ? 'harbour' : topic === 'lighthouse' ? 'lighthouse' : topic === 'granary' ? 'granary' : 'foundry'), `${topic} under ${c.section}`);
      }
    }
    // Every sentence written is in exactly one chunk (no overlap asked).
    const all = data.chunks.map((c) => squash(c.text)).join(' ');
    for (const [topic, count] of [['harbour', 24], ['lighthouse', 24], ['granary', 18], ['foundry', 18]] as const) {
      for (let i = 0; i < count; i++) assert.equal(all.split(sentence(topic, i)).length - 1, 1, `${topic} ${i}`);
    }
    const paths = [...new Set(data.chunks.map((c) => c.metadata.headings_path.join(' > ')))];
    assert.deepEqual(paths, ['Harbour Operations > Harbour Duties', 'Harbour Operations > Lighthouse Watch', 'Stores and Works > Granary Accounts', 'Stores and Works > Foundry Shifts']);
    // A section's first chunk starts with its heading.
    const first = data.chunks.find((c) => c.section === 'Granary Accounts');
    assert.match(first?.text ?? '', /^Granary Accounts\n\n/);
  });

  test('the overlap carries the previous chunk\'s last whole sentences into the next chunk of the same section', async () => {
    const data = await chunk(pdf, { max_chunk_size: 128, chunk_overlap: 40 });
    let carried = 0;
    for (let i = 1; i < data.chunks.length; i++) {
      const [before, current] = [data.chunks[i - 1] as Chunk, data.chunks[i] as Chunk];
      if (before.section !== current.section) continue;
      const last = squash(before.text).split(/(?<=bell\.)\s+/).at(-1) as string;
      assert.ok(squash(current.text).startsWith(last), `chunk ${i} does not start with "${last}"`);
      carried++;
    }
    assert.ok(carried > 0);
  });

  test('the same PDF always gets the same document id and chunk ids', async () => {
    const [a, b] = await Promise.all([chunk(pdf), chunk(pdf)]);
    assert.equal(a.document_id, b.document_id);
    assert.deepEqual(a.chunks.map((c) => c.chunk_id), b.chunks.map((c) => c.chunk_id));
    assert.deepEqual(a.chunks.map((c) => c.text), b.chunks.map((c) => c.text));
    const other = await chunk(await renderPdf(s.base, { operations: [{ type: 'add_text', text: 'Another document entirely.' }] }));
    assert.notEqual(other.document_id, a.document_id);
  });

  test('fixed windows hold max_chunk_size tokens (or one fewer) but the last, never more, and advance by size minus overlap', async () => {
    const data = await chunk(pdf, { strategy: 'fixed', max_chunk_size: 100, chunk_overlap: 20 });
    assert.ok(data.chunks.length > 5);
    for (const c of data.chunks.slice(0, -1)) assert.ok(c.token_count >= 99 && c.token_count <= 100, `${c.token_count}`);
    assert.ok((data.chunks.at(-1)?.token_count ?? 0) <= 100);
    const [a, b] = data.chunks as [Chunk, Chunk];
    // The second window begins inside the first: its first words are among the first window's last.
    const start = squash(b.text).split(' ').slice(0, 4).join(' ');
    assert.ok(squash(a.text).includes(start), `"${start}" not in the first window`);
  });

  test('page chunks: one per page when pages fit, each with its page number', async () => {
    const three = await renderPdf(s.base, {
      operations: [1, 2, 3].flatMap((n) => [...(n > 1 ? [{ type: 'add_page' }] : []), { type: 'add_text', text: paragraph(TOPICS[n] as string, 0, 3) }]),
    });
    const data = await chunk(three, { strategy: 'page' });
    assert.deepEqual(data.chunks.map((c) => c.page), [1, 2, 3]);
    assert.equal(data.page_count, 3);
    assert.ok(data.chunks[1]?.text.includes('The granary ledger'));
  });

  test('a ruled table is a chunk of its own, as Markdown, with is_table', async () => {
    const table = await renderPdf(s.base, {
      operations: [
        { type: 'add_text', text: 'Quarterly stock of the granary follows.' },
        { type: 'add_table', columns: [120, 120], header: ['Item', 'Count'], rows: [['Barley', '420'], ['Oats', '315']] },
        { type: 'add_text', text: 'The counts were taken at dawn.' },
      ],
    });
    const data = await chunk(table);
    const tables = data.chunks.filter((c) => c.metadata.is_table);
    assert.equal(tables.length, 1, JSON.stringify(data.chunks));
    assert.equal(squash(tables[0]?.text ?? ''), squash('| Item | Count |\n| --- | --- |\n| Barley | 420 |\n| Oats | 315 |'));
    const prose = data.chunks.filter((c) => !c.metadata.is_table).map((c) => c.text).join(' ');
    assert.ok(prose.includes('Quarterly stock') && prose.includes('taken at dawn') && !prose.includes('Barley'), prose);
    const flat = await chunk(table, { preserve_structure: false });
    assert.ok(flat.chunks.every((c) => !c.metadata.is_table));
  });

  test('a language given is used as it is', async () => {
    const data = await chunk(pdf, { language: 'en-GB' });
    assert.equal(data.language, 'en-GB');
    assert.ok(data.chunks.every((c) => c.metadata.language === 'en-GB'));
  });

  test('bad options are 422 naming the field; a non-PDF is invalid-pdf-data', async () => {
    const base64 = Buffer.from(pdf).toString('base64');
    for (const [options, field] of [
      [{ strategy: 'sentences' }, 'options.strategy'],
      [{ max_chunk_size: 8 }, 'options.max_chunk_size'],
      [{ max_chunk_size: 100, chunk_overlap: 100 }, 'options.chunk_overlap'],
      [{ max_chunk_size: 48, chunk_overlap: 64 }, 'options.chunk_overlap'],
      [{ language: 'not a tag' }, 'options.language'],
    ] as const) {
      const response = await call({ pdf_data: base64, options });
      const problem = await readProblem(response);
      assert.equal(response.status, 422, JSON.stringify(problem));
      assert.equal(problem.errors?.[0]?.field, field);
    }
    const response = await call({ pdf_data: Buffer.from('not a pdf at all').toString('base64') });
    assert.equal((await readProblem(response)).slug, 'invalid-pdf-data');
  });

  test('max_chunk_size alone, 32 to 64 included, is served: the default overlap is a quarter of it, at most 64', async () => {
    for (const size of [32, 48, 64]) {
      const data = await chunk(pdf, { strategy: 'fixed', max_chunk_size: size });
      const [a, b] = data.chunks as [Chunk, Chunk];
      assert.ok(data.chunks.every((c) => c.token_count <= size));
      // Windows start size - size/4 tokens apart: the second begins with the first's last quarter.
      const start = squash(b.text).split(' ').slice(0, 2).join(' ');
      assert.ok(squash(a.text).includes(start), `${size}: "${start}" not in the first window`);
    }
  });

  test('pro and core keys get 403; a pro deployment has no such route', async () => {
    for (const key of [KEYS.pro, KEYS.core]) assert.equal((await readProblem(await call({ pdf_data: 'x' }, key))).slug, 'capability-denied');
    const pro = await startTestServer({ PLATEN_EDITION: 'pro' });
    try {
      const response = await fetch(`${pro.base}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(KEYS.enterprise) }, body: '{}' });
      assert.equal(response.status, 404);
    } finally {
      await pro.close();
    }
  });
});

describe('chunkElements, in process: no chunk is longer than max_chunk_size counted again', () => {
  before(() => loadTokenizer());

  // Words whose tokens inside a sentence are not their tokens alone ("unbelievable", numbers, a long
  // run of x), characters o200k_base spells in several byte tokens (rare CJK, emoji), and other scripts.
  const WORDS = ['harbour', 'unbelievable', 'ledger', '12345', '3.14159', 'naïve', 'café', '東京都', '日本語の文章', '😀', '—', '"quoted"', "it's", 'Mr.', '(see p. 4)', 'x'.repeat(30), 'ﬁnance', 'Übermaß', 'ثلاثة', 'привет', '<|endoftext|>'];
  function elements(seed: number): Element[] {
    let state = seed;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const words = (n: number) => Array.from({ length: n }, () => `${WORDS[Math.floor(next() * WORDS.length)]}${next() < 0.15 ? '.' : ''}`).join(' ');
    const out: Element[] = [];
    for (let page = 1; page <= 2; page++) {
      for (let e = 0; e < 5; e++) out.push((e === 0 ? { kind: 'heading', level: 1, text: words(3), page } : { kind: 'paragraph', text: words(10 + Math.floor(next() * 90)), page }) as Element);
    }
    return out;
  }

  test('fixed windows: at most max_chunk_size, all but the last max_chunk_size or one fewer, no character cut', () => {
    let windows = 0;
    for (const [size, overlap] of [[32, 0], [32, 8], [48, 12], [64, 63], [100, 20], [512, 64]] as const) {
      for (let seed = 1; seed <= 8; seed++) {
        const input = elements(seed);
        const chunks = chunkElements(input, { strategy: 'fixed', maxTokens: size, overlapTokens: overlap, preserveStructure: true, language: 'en' });
        const counts = chunks.map((c) => countTokens(c.text));
        counts.forEach((count, i) => {
          assert.ok(count <= size, `size ${size}, overlap ${overlap}, seed ${seed}: window ${i} has ${count} tokens`);
          if (i < counts.length - 1) assert.ok(count >= size - 1, `size ${size}, overlap ${overlap}, seed ${seed}: window ${i} has ${count} tokens`);
          assert.ok(!chunks[i]?.text.includes('\uFFFD'), `a character cut in window ${i}`);
        });
        // Without overlap, the windows are the text, every character once.
        if (overlap === 0) assert.equal(chunks.map((c) => c.text).join('').replace(/\s+/g, ''), input.map((e) => (e.kind === 'table' ? '' : e.text)).join('').replace(/\s+/g, ''));
        windows += counts.length;
      }
    }
    assert.ok(windows > 200);
  });

  test('semantic and page chunks stay within the size when every sentence fits in one', () => {
    const short = (seed: number) => elements(seed).map((e) => (e.kind === 'paragraph' ? { ...e, text: e.text.replace(/x{30}/g, 'x').replace(/ /g, (_, at: number) => (at % 5 === 0 ? '. ' : ' ')) } : e));
    for (const strategy of ['semantic', 'page'] as Strategy[]) {
      for (const [size, overlap] of [[32, 8], [64, 16], [128, 0]] as const) {
        for (let seed = 1; seed <= 6; seed++) {
          for (const c of chunkElements(short(seed), { strategy, maxTokens: size, overlapTokens: overlap, preserveStructure: true, language: 'en' })) {
            const count = countTokens(c.text);
            // The documented exception: a sentence (as the chunker cuts them) longer than a chunk stays whole.
            const sentenceTooLong = c.text.split(/\n\n/).some((p) => sentences(p, 'en').some((one) => countTokens(one) > size));
            assert.ok(count <= size || sentenceTooLong, `${strategy} ${size}/${overlap} seed ${seed}: ${count} tokens: ${JSON.stringify(c.text)}`);
          }
        }
      }
    }
  });
});
