// Which page of A became which page of B inside a stretch that differs.
// As many pages on both sides: page for page, in order. Otherwise as many
// pairs as the shorter side has pages, chosen to keep the order and share
// the most words (dynamic programming over the stretch, like a global
// alignment); the pages left over were added or removed.
import type { PageModel } from './compare.js';

export interface PagePair {
  readonly a?: PageModel;
  readonly b?: PageModel;
}

/** What any pair is worth beyond its words in common: pairing beats leaving both pages unpaired. */
const PAIR_BONUS = 0.01;
/** Larger stretches (m x n pages) are paired in order: the alignment is quadratic in pages and linear in words per cell. */
const MAX_ALIGNMENT = 10_000;

export function pairPages(a: readonly PageModel[], b: readonly PageModel[]): PagePair[] {
  if (a.length === b.length || a.length * b.length > MAX_ALIGNMENT) return inOrder(a, b);
  const m = a.length;
  const n = b.length;
  const counts = (page: PageModel) => {
    const map = new Map<string, number>();
    for (const t of page.tokens) map.set(t.key, (map.get(t.key) ?? 0) + 1);
    return map;
  };
  const bagsA = a.map(counts);
  const bagsB = b.map(counts);
  const similarity = (i: number, j: number): number => {
    const x = bagsA[i] as Map<string, number>;
    const y = bagsB[j] as Map<string, number>;
    const total = (a[i] as PageModel).tokens.length + (b[j] as PageModel).tokens.length;
    if (total === 0) return 1;
    let shared = 0;
    for (const [key, count] of x) shared += Math.min(count, y.get(key) ?? 0);
    return (2 * shared) / total;
  };
  // best[i][j]: the most similarity pairing a[i..] with b[j..] can collect.
  const best = Array.from({ length: m + 1 }, () => new Float64Array(n + 1));
  const sims = Array.from({ length: m }, (_, i) => Float64Array.from({ length: n }, (_, j) => similarity(i, j)));
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      const s = (sims[i] as Float64Array)[j] as number;
      const paired = s + PAIR_BONUS + ((best[i + 1] as Float64Array)[j + 1] as number);
      (best[i] as Float64Array)[j] = Math.max(paired, (best[i + 1] as Float64Array)[j] as number, (best[i] as Float64Array)[j + 1] as number);
    }
  }
  const pairs: PagePair[] = [];
  let i = 0;
  let j = 0;
  while (i < m && j < n) {
    const s = (sims[i] as Float64Array)[j] as number;
    const here = (best[i] as Float64Array)[j] as number;
    if (here === s + PAIR_BONUS + ((best[i + 1] as Float64Array)[j + 1] as number)) pairs.push({ a: a[i++], b: b[j++] });
    else if (here === ((best[i + 1] as Float64Array)[j] as number)) pairs.push({ a: a[i++] });
    else pairs.push({ b: b[j++] });
  }
  while (i < m) pairs.push({ a: a[i++] });
  while (j < n) pairs.push({ b: b[j++] });
  return pairs;
}

function inOrder(a: readonly PageModel[], b: readonly PageModel[]): PagePair[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, k) => ({ a: a[k], b: b[k] }));
}
