// Which pages of A and B are the same page, before any word is compared.
// An edit distance in which a page replaced by another costs one edit, as
// does a page added or removed (Levenshtein, not the longest common
// subsequence): with repeated identical pages (a letter sent fifty times,
// blank pages) many alignments share the longest common subsequence, and
// Myers' diff may pick one that removes page 50 and adds page 25 where
// page 25 was changed; counting the change as one edit prefers "page 25
// changed". Quadratic in pages, so past MAX_CELLS it falls back to the
// linear-space diff.
import { diffRuns, type Run } from './sequence-diff.js';

/** 2,000 x 2,000 pages (PLATEN_MAX_PAGES' default): 16 MB of Int32 and ~20 ms. */
const MAX_CELLS = 4_000_001;

export function alignPages(a: readonly string[], b: readonly string[]): Run[] {
  // Fingerprints as small integers: each comparison below is then one integer test.
  const ids = new Map<string, number>();
  const id = (fingerprint: string) => {
    let known = ids.get(fingerprint);
    if (known === undefined) ids.set(fingerprint, (known = ids.size));
    return known;
  };
  const x = Int32Array.from(a, id);
  const y = Int32Array.from(b, id);
  const m = x.length;
  const n = y.length;
  if ((m + 1) * (n + 1) > MAX_CELLS) return diffRuns(m, n, (i, j) => x[i] === y[j]);
  // cost[i * (n + 1) + j]: edits turning a[i..] into b[j..].
  const width = n + 1;
  const cost = new Int32Array((m + 1) * width);
  for (let j = 0; j <= n; j++) cost[m * width + j] = n - j;
  for (let i = m - 1; i >= 0; i--) {
    cost[i * width + n] = m - i;
    for (let j = n - 1; j >= 0; j--) {
      const diagonal = (cost[(i + 1) * width + j + 1] as number) + (x[i] === y[j] ? 0 : 1);
      cost[i * width + j] = Math.min(diagonal, 1 + (cost[(i + 1) * width + j] as number), 1 + (cost[i * width + j + 1] as number));
    }
  }
  const runs: Run[] = [];
  let i = 0;
  let j = 0;
  let run: { equal: boolean; aStart: number; bStart: number } | null = null;
  const step = (equal: boolean, di: number, dj: number) => {
    if (run === null || run.equal !== equal) {
      if (run !== null) runs.push({ ...run, aEnd: i, bEnd: j });
      run = { equal, aStart: i, bStart: j };
    }
    i += di;
    j += dj;
  };
  while (i < m || j < n) {
    const here = cost[i * width + j] as number;
    if (i < m && j < n && x[i] === y[j] && here === cost[(i + 1) * width + j + 1]) step(true, 1, 1);
    else if (i < m && j < n && here === 1 + (cost[(i + 1) * width + j + 1] as number)) step(false, 1, 1);
    else if (i < m && here === 1 + (cost[(i + 1) * width + j] as number)) step(false, 1, 0);
    else step(false, 0, 1);
  }
  const last = run as { equal: boolean; aStart: number; bStart: number } | null;
  if (last !== null) runs.push({ ...last, aEnd: i, bEnd: j });
  return runs;
}
