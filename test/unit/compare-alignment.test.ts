// Page alignment and page pairing of compare (workers/compare/), on page
// fingerprints and word lists written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PageModel } from '../../workers/compare/compare.js';
import { alignPages } from '../../workers/compare/page-alignment.js';
import { pairPages } from '../../workers/compare/pairing.js';
import { diffRuns } from '../../workers/compare/sequence-diff.js';

const changed = (runs: ReturnType<typeof alignPages>) => runs.filter((r) => !r.equal).map((r) => [r.aStart, r.aEnd, r.bStart, r.bEnd]);

test('fifty identical pages, page 25 changed and a page added after 40: one replaced page and one added, not a page removed at the end', () => {
  const a = Array.from({ length: 50 }, () => 'letter');
  const b = [...a.slice(0, 24), 'letter, other date', ...a.slice(25, 40), 'annex', ...a.slice(40)];
  assert.deepEqual(changed(alignPages(a, b)), [
    [24, 25, 24, 25],
    [40, 40, 40, 41],
  ]);
  // The longest-common-subsequence diff alone may align these another way, with as few matched pages.
  const lcs = diffRuns(a.length, b.length, (i, j) => a[i] === b[j]);
  assert.equal(lcs.filter((r) => r.equal).reduce((n, r) => n + r.aEnd - r.aStart, 0), 49);
});

test('identical documents align page for page; an empty side is all added', () => {
  assert.deepEqual(changed(alignPages(['x', 'y', 'z'], ['x', 'y', 'z'])), []);
  assert.deepEqual(changed(alignPages([], ['x', 'y'])), [[0, 0, 0, 2]]);
  assert.deepEqual(changed(alignPages(['x', 'y'], [])), [[0, 2, 0, 0]]);
});

const page = (number: number, text: string): PageModel => ({
  number,
  tokens: text.split(' ').map((key) => ({ text: key, key, page: number, x: 0, y: 0, font: 'F', size: 10, color: '#000000' })),
  images: [],
  fingerprint: text,
});

test('pairing inside a differing stretch: page for page when counts agree; by shared words otherwise', () => {
  const a = [page(3, 'terms of delivery apply'), page(4, 'prices in euro')];
  const b = [page(3, 'an annex nobody expected'), page(4, 'terms of delivery now apply'), page(5, 'prices in pounds')];
  const pairs = pairPages(a, b).map((p) => [p.a?.number ?? null, p.b?.number ?? null]);
  assert.deepEqual(pairs, [
    [null, 3],
    [3, 4],
    [4, 5],
  ]);
  assert.deepEqual(
    pairPages([page(1, 'one')], [page(1, 'uno')]).map((p) => [p.a?.number, p.b?.number]),
    [[1, 1]],
  );
});
