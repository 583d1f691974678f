// Retrieval quality of the built-in model: recall@5 (and @1) of
// platen-lexical-v1 over bench/rag-questions.ts (60 questions with the page
// that answers each, over 13 pages of a public-domain text), on `semantic`
// chunks against `fixed` ones of the same size. A question counts as found
// when one of the top five results starts on its page. Everything goes
// through the built server: render the PDF (headings at 16 pt bold over
// 10 pt body text, one section a page), index it twice, search each
// question in each collection. Writes bench/results/rag-recall.json.
//
// Not part of `make test`: `npm run build && node dist/bench/rag-recall.js`.
import { mkdir, writeFile } from 'node:fs/promises';
import { BENCH_KEY } from './documents.js';
import { QUESTIONS, SECTIONS } from './rag-questions.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';

const CHUNK_TOKENS = 128;
const OVERLAP_TOKENS = 16;

async function call(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` }, body: JSON.stringify(body) });
  if (path === '/api/v1/render') {
    if (response.status !== 200) throw new Error(`render: ${response.status} ${await response.text()}`);
    return { pdf: Buffer.from(await response.arrayBuffer()).toString('base64') };
  }
  const json = (await response.json()) as { data?: Record<string, unknown> };
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data as Record<string, unknown>;
}

export function documentOperations(): Record<string, unknown>[] {
  return SECTIONS.flatMap((section, i) => [
    ...(i > 0 ? [{ type: 'add_page' }] : []),
    { type: 'set_font', family: 'Helvetica', bold: true, size: 16 },
    { type: 'add_text', text: section.heading },
    { type: 'set_font', family: 'Times', bold: false, size: 10 },
    ...section.paragraphs.map((text) => ({ type: 'add_text', text })),
  ]);
}

async function main(): Promise<void> {
  const settings = loadSettings();
  const server = await startPlaten(settings);
  try {
    const { pdf } = await call(server.base, '/api/v1/render', { operations: documentOperations() });
    const figures: Record<string, unknown> = {};
    for (const strategy of ['semantic', 'fixed'] as const) {
      const collection = `recall-${strategy}`;
      const indexed = await call(server.base, '/v1/rag/index', {
        pdf_data: pdf,
        vector_store: { collection },
        options: { chunking_strategy: strategy, max_chunk_size: CHUNK_TOKENS, chunk_overlap: OVERLAP_TOKENS },
      });
      let at1 = 0;
      let at5 = 0;
      const missed: string[] = [];
      for (const [question, page] of QUESTIONS) {
        const found = await call(server.base, '/v1/rag/search', { query: question, vector_store: { collection }, options: { top_k: 5 } });
        const pages = (found.results as { page: number }[]).map((r) => r.page);
        if (pages[0] === page) at1++;
        if (pages.includes(page)) at5++;
        else missed.push(`${question} (page ${page}; got ${pages.join(', ')})`);
      }
      figures[strategy] = { chunks: indexed.chunks_indexed, recall_at_1: at1 / QUESTIONS.length, recall_at_5: at5 / QUESTIONS.length, missed };
      console.log(`${strategy}: ${String(indexed.chunks_indexed)} chunks, recall@1 ${(at1 / QUESTIONS.length).toFixed(3)}, recall@5 ${(at5 / QUESTIONS.length).toFixed(3)}`);
      for (const miss of missed) console.log(`  missed: ${miss}`);
    }
    const out = { model: 'platen-lexical-v1', dimensions: 384, questions: QUESTIONS.length, pages: SECTIONS.length, chunk_tokens: CHUNK_TOKENS, overlap_tokens: OVERLAP_TOKENS, ...figures };
    await mkdir(new URL('../../bench/results/', import.meta.url), { recursive: true });
    await writeFile(new URL('../../bench/results/rag-recall.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
