// The bench's interleaved ratios (bench/interleave.ts): rounds alternate A
// and B, the median and range come from the per-round ratios, and a range
// wider than ±10% of the median is flagged noisy, never met or missed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interleave, medianOf, verdict, type Side } from '../../bench/interleave.js';
import { cpuSplit } from '../../bench/thread-cpu.js';

/** A side answering the given req/s, one per round, and recording when it ran. */
function scripted(name: string, rates: number[], log: string[]): Side {
  let round = 0;
  return {
    name,
    warm: async () => void log.push(`warm ${name}`),
    run: async () => {
      log.push(name);
      const rate = rates[round++] ?? 0;
      return { requestsPerSecond: rate, p50Ms: 1, p99Ms: 2, maxMs: 3 };
    },
  };
}

const OPTIONS = { rounds: 5, roundSeconds: 0, warmupSeconds: 0 };

test('rounds alternate A B A B after one warm-up each; the ratio is the median of per-round ratios', async () => {
  const log: string[] = [];
  const result = await interleave('x', scripted('A', [90, 100, 95, 110, 105], log), scripted('B', [100, 100, 100, 100, 100], log), OPTIONS);
  assert.deepEqual(log, ['warm A', 'warm B', 'A', 'B', 'A', 'B', 'A', 'B', 'A', 'B', 'A', 'B']);
  assert.deepEqual(result.rounds.map((r) => r.ratio), [0.9, 1, 0.95, 1.1, 1.05]);
  assert.equal(result.median, 1);
  assert.equal(result.min, 0.9);
  assert.equal(result.max, 1.1);
  assert.equal(result.spread, 0.1);
  assert.equal(result.noisy, false);
  assert.equal(verdict(result, (m) => m >= 0.9), 'met');
  assert.equal(verdict(result, (m) => m >= 1.2), 'missed');
});

test('hooks run around every measured round of each side, never around the warm-ups', async () => {
  const log: string[] = [];
  const hooks = {
    beforeA: () => void log.push('beforeA'),
    afterA: (figures: { requestsPerSecond: number }) => void log.push(`afterA ${figures.requestsPerSecond}`),
    beforeB: () => void log.push('beforeB'),
    afterB: (figures: { requestsPerSecond: number }) => void log.push(`afterB ${figures.requestsPerSecond}`),
  };
  await interleave('h', scripted('A', [10, 20], log), scripted('B', [30, 40], log), { ...OPTIONS, rounds: 2 }, hooks);
  assert.deepEqual(log, ['warm A', 'warm B', 'beforeA', 'A', 'afterA 10', 'beforeB', 'B', 'afterB 30', 'beforeA', 'A', 'afterA 20', 'beforeB', 'B', 'afterB 40']);
});

test('a range wider than ±10% of the median is noisy: neither met nor missed', async () => {
  const result = await interleave('y', scripted('A', [50, 100, 100, 100, 100], []), scripted('B', [100, 100, 100, 100, 100], []), OPTIONS);
  assert.equal(result.median, 1);
  assert.equal(result.spread, 0.5);
  assert.equal(result.noisy, true);
  assert.equal(verdict(result, (m) => m >= 0.9), 'noisy');
});

test('medianOf: odd and even counts', () => {
  assert.equal(medianOf([3, 1, 2]), 2);
  assert.equal(medianOf([4, 1, 3, 2]), 2.5);
  assert.equal(medianOf([]), 0);
});

test('cpuSplit: the main thread is the task id equal to the pid; the busiest others are the workers', () => {
  const before = new Map([[100, 1000], [101, 0], [102, 0], [103, 10], [104, 5]]);
  const after = new Map([[100, 1050], [101, 900], [102, 880], [103, 30], [104, 5], [105, 7]]);
  assert.deepEqual(cpuSplit(100, before, after, 2), { mainMs: 50, workersMs: 1780, otherMs: 27 });
});
