// Search filters on every path a result has, checked the same way on both
// vector stores (rag-index.test.ts: embedded; rag-pgvector.test.ts:
// pgvector). A handbook of two chapters of two sections each (one chapter
// title with a comma and quotes, which must stay values, not SQL or JSON)
// is indexed; every value every result holds, on every path, is then used
// as a filter, and the answer must be exactly the results that hold it.
// `metadata.headings_path` is an array: a string matches a path containing
// that heading, an array a path starting with those headings.
import assert from 'node:assert/strict';
import { renderPdf } from './http.js';
import type { SearchResult } from './rag.js';

export const CHAPTERS: Readonly<Record<string, readonly string[]>> = {
  'Harbour Operations': ['Harbour Duties', 'Lighthouse Watch'],
  'Stores, "Mills" and Works': ['Granary Accounts', 'Foundry Shifts'],
};

function sentence(topic: string, i: number): string {
  return `The ${topic} ledger records entry number ${i + 1}, which notes that the ${topic} crew checked item ${i * 7 + 3} before the evening bell.`;
}

/** Chapter headings at 20 pt and section headings at 15 pt, bold, over 10 pt body text: the chunker's headings from typography. */
export function sectionedDocument(base: string): Promise<Uint8Array> {
  const operations: Record<string, unknown>[] = [];
  const heading = (text: string, size: number) => operations.push({ type: 'set_font', family: 'Helvetica', bold: true, size }, { type: 'add_text', text });
  for (const [chapter, sections] of Object.entries(CHAPTERS)) {
    heading(chapter, 20);
    for (const section of sections) {
      heading(section, 15);
      const topic = (section.split(' ')[0] as string).toLowerCase();
      for (let p = 0; p < 3; p++) {
        operations.push({ type: 'set_font', family: 'Times', bold: false, size: 10 }, { type: 'add_text', text: Array.from({ length: 6 }, (_, i) => sentence(topic, p * 6 + i)).join(' ') });
      }
    }
  }
  return renderPdf(base, { page_size: 'A4', operations });
}

/** One search of the indexed collection: `filter` and top_k 100, no min_score. */
export type FilteredSearch = (filter: Record<string, unknown>) => Promise<SearchResult[]>;

const SCALAR_PATHS: ReadonlyArray<[string, (r: SearchResult) => unknown]> = [
  ['document_id', (r) => r.document_id],
  ['chunk_id', (r) => r.chunk_id],
  ['page', (r) => r.page],
  ['section', (r) => r.section],
  ['metadata.is_table', (r) => r.metadata.is_table],
  ['metadata.language', (r) => r.metadata.language],
  ['metadata.namespace', (r) => r.metadata.namespace],
  ['metadata.token_count', (r) => r.metadata.token_count],
];

const ids = (results: readonly SearchResult[]) => results.map((r) => r.chunk_id).sort();

async function expectExactly(search: FilteredSearch, filter: Record<string, unknown>, expected: readonly SearchResult[]): Promise<void> {
  assert.deepEqual(ids(await search(filter)), ids(expected), `filter ${JSON.stringify(filter)}`);
}

/** Every path and every value the collection's results hold, as filters; `headings_path` as an element and as a prefix. */
export async function checkEveryFilterPath(search: FilteredSearch): Promise<void> {
  const all = await search({});
  assert.ok(all.length >= 8 && all.length < 100, `a handbook of a few chunks a section: ${all.length}`);
  const paths = new Set(all.map((r) => JSON.stringify(r.metadata.headings_path)));
  for (const [chapter, sections] of Object.entries(CHAPTERS)) {
    for (const section of sections) assert.ok(paths.has(JSON.stringify([chapter, section])), `chunks under ${chapter} > ${section}: ${[...paths].join(' ')}`);
  }
  for (const [path, valueOf] of SCALAR_PATHS) {
    for (const value of new Set(all.map(valueOf))) await expectExactly(search, { [path]: value }, all.filter((r) => valueOf(r) === value));
  }
  await expectExactly(search, { 'metadata.namespace': 'another' }, []);
  await expectExactly(search, { 'metadata.token_count': 100_000 }, []);

  const headings = new Set(all.flatMap((r) => r.metadata.headings_path));
  for (const heading of headings) await expectExactly(search, { 'metadata.headings_path': heading }, all.filter((r) => r.metadata.headings_path.includes(heading)));
  const prefixes = new Set(all.flatMap((r) => r.metadata.headings_path.map((_, depth) => JSON.stringify(r.metadata.headings_path.slice(0, depth + 1)))));
  for (const prefix of prefixes) {
    const want = JSON.parse(prefix) as string[];
    await expectExactly(search, { 'metadata.headings_path': want }, all.filter((r) => want.every((heading, i) => r.metadata.headings_path[i] === heading)));
  }
  // A section matches wherever it sits, a chapter's path matches all its sections, and the empty path every chunk.
  const granary = all.filter((r) => r.section === 'Granary Accounts');
  assert.ok(granary.length > 0);
  await expectExactly(search, { 'metadata.headings_path': 'Granary Accounts' }, granary);
  await expectExactly(search, { 'metadata.headings_path': ['Stores, "Mills" and Works'] }, all.filter((r) => r.metadata.headings_path[0] === 'Stores, "Mills" and Works'));
  await expectExactly(search, { 'metadata.headings_path': [] }, all);
  // Part of a heading is not the heading; a path is matched heading by heading, and from the top.
  await expectExactly(search, { 'metadata.headings_path': 'Harbour' }, []);
  await expectExactly(search, { 'metadata.headings_path': ['Harbour'] }, []);
  await expectExactly(search, { 'metadata.headings_path': ['Harbour Duties'] }, []);
  await expectExactly(search, { 'metadata.headings_path': ['Harbour Operations', 'Granary Accounts'] }, []);
  await expectExactly(search, { 'metadata.headings_path': 'Mills' }, []);
  await expectExactly(search, { 'metadata.headings_path': '"Mills"' }, []);
  await expectExactly(search, { 'metadata.headings_path': "x' OR '1'='1" }, []);
  // Combined filters must all hold.
  await expectExactly(search, { 'metadata.headings_path': ['Harbour Operations'], section: 'Granary Accounts' }, []);
  const first = all.find((r) => r.section === 'Lighthouse Watch') as SearchResult;
  await expectExactly(search, { 'metadata.headings_path': 'Lighthouse Watch', page: first.page }, all.filter((r) => r.section === 'Lighthouse Watch' && r.page === first.page));
}
