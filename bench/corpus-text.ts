// Text agreement with poppler's pdftotext on PDFs no one here wrote
// (../shared/corpus/: veraPDF's test files and camelot's benchmark PDFs).
// Per page: our text (blocks in reading order, as /v1/parse gives them)
// against `pdftotext -f N -l N`, both with whitespace collapsed and NFKC
// applied, as a character error rate: Levenshtein distance over the length
// of poppler's text. Pages where poppler finds no text are left out (a
// rate over nothing means nothing). Prints the median, the mean, the worst
// pages, and how many documents neither tool could read.
//
// Not part of `make test` (the corpus is not shipped): `make corpus-text`.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { layoutPage, pageText } from '../workers/read/layout/page-layout.js';
import { openReader } from '../workers/read/reader.js';

const run = promisify(execFile);
const MAX_PAGES_PER_FILE = 5;

async function pdfFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.pdf')).map((e) => join(e.parentPath, e.name)).sort();
}

function normalise(text: string): string {
  return text.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/** Levenshtein distance in O(min(n, m)) memory. */
function distance(a: string, b: string): number {
  if (a.length < b.length) [a, b] = [b, a];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  let current = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length] as number;
}

async function popplerPage(file: string, page: number): Promise<string | null> {
  try {
    return (await run('pdftotext', ['-q', '-f', String(page), '-l', String(page), file, '-'], { maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch {
    return null;
  }
}

/**
 * The same rate with order left out: characters one text has more of than
 * the other, over the reference's length. What separates a reading-order
 * difference (a table read by columns rather than rows) from text missing
 * or wrong.
 */
function bagDistance(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const c of a.replace(/ /g, '')) counts.set(c, (counts.get(c) ?? 0) + 1);
  for (const c of b.replace(/ /g, '')) counts.set(c, (counts.get(c) ?? 0) - 1);
  let missing = 0;
  let extra = 0;
  for (const n of counts.values()) {
    if (n > 0) extra += n;
    else missing -= n;
  }
  return Math.max(missing, extra);
}

interface PageScore {
  readonly file: string;
  readonly page: number;
  readonly cer: number;
  readonly bag: number;
  readonly length: number;
}

async function main(): Promise<void> {
  const root = process.argv[2] ?? '../shared/corpus';
  const files = await pdfFiles(root);
  const scores: PageScore[] = [];
  let unreadable = 0;
  let popplerOnly = 0;
  const started = performance.now();
  for (const file of files) {
    let document;
    try {
      document = await openReader(new Uint8Array(await readFile(file)), undefined, { data: 'pdf_data', password: 'password' });
    } catch {
      if ((await popplerPage(file, 1)) === null) unreadable++;
      else popplerOnly++;
      continue;
    }
    try {
      for (let number = 1; number <= Math.min(document.pageCount, MAX_PAGES_PER_FILE); number++) {
        const reference = normalise((await popplerPage(file, number)) ?? '');
        if (reference.length === 0) continue;
        const page = await document.page(number);
        const ours = normalise(pageText(layoutPage(await page.text({ styles: false }))));
        page.close();
        scores.push({
          file,
          page: number,
          cer: Math.min(1, distance(ours, reference) / reference.length),
          bag: Math.min(1, bagDistance(ours, reference) / reference.replace(/ /g, '').length),
          length: reference.length,
        });
      }
    } catch (error) {
      console.error(`${file}: ${(error as Error).message}`);
    } finally {
      await document.close();
    }
  }
  const rates = scores.map((s) => s.cer).sort((a, b) => a - b);
  const at = (q: number) => rates[Math.min(rates.length - 1, Math.floor(q * rates.length))] ?? Number.NaN;
  const mean = rates.reduce((sum, r) => sum + r, 0) / rates.length;
  const pct = (r: number) => `${(r * 100).toFixed(2)} %`;
  console.log(`files: ${files.length}; pages compared: ${scores.length}; files neither tool reads: ${unreadable}; files only poppler reads: ${popplerOnly}`);
  console.log(`character error rate per page: median ${pct(at(0.5))}, mean ${pct(mean)}, p90 ${pct(at(0.9))}, p99 ${pct(at(0.99))}, worst ${pct(rates[rates.length - 1] ?? Number.NaN)}`);
  const bags = scores.map((s) => s.bag).sort((a, b) => a - b);
  const bagAt = (q: number) => bags[Math.min(bags.length - 1, Math.floor(q * bags.length))] ?? Number.NaN;
  console.log(`order left out (characters one side has more of): median ${pct(bagAt(0.5))}, mean ${pct(bags.reduce((sum, r) => sum + r, 0) / bags.length)}, p90 ${pct(bagAt(0.9))}, worst ${pct(bags[bags.length - 1] ?? Number.NaN)}`);
  const long = scores.filter((s) => s.length >= 200).map((s) => s.cer).sort((a, b) => a - b);
  console.log(`pages with at least 200 characters: ${long.length}; median ${pct(long[Math.floor(long.length / 2)] ?? Number.NaN)}, worst ${pct(long[long.length - 1] ?? Number.NaN)}`);
  console.log(`pages at 0 %: ${rates.filter((r) => r === 0).length}; under 2 %: ${rates.filter((r) => r < 0.02).length}`);
  console.log('worst pages:');
  for (const s of [...scores].sort((a, b) => b.cer - a.cer).slice(0, 8)) console.log(`  ${pct(s.cer)} (order left out ${pct(s.bag)})  ${s.file.slice(root.length + 1)} p${s.page} (${s.length} chars)`);
  console.log(`took ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
