// LeaseCache (src/store/vectors/lease-cache.ts): bounded, closes an evicted
// entry only when its last lease ends, and gives a draining entry back to the
// next request for its key instead of opening a second one beside it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LeaseCache } from '../../src/store/vectors/lease-cache.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function counting(capacity: number) {
  const opened: string[] = [];
  const closed: string[] = [];
  const cache = new LeaseCache<string>({ capacity, close: async (value) => void closed.push(value) });
  const open = (key: string) => async () => {
    opened.push(key);
    return `${key}#${opened.length}`;
  };
  return { cache, opened, closed, open };
}

test('an entry evicted while leased closes when its last lease ends', async () => {
  const { cache, closed, open } = counting(1);
  const held = deferred();
  const a = cache.use('a', open('a'), () => held.promise);
  await cache.use('b', open('b'), async () => undefined);
  assert.deepEqual(closed, [], 'a is still leased');
  held.resolve();
  await a;
  await cache.close();
  assert.deepEqual(closed, ['a#1', 'b#2']);
});

test('a key asked for again while its evicted entry drains gets that entry back, not a second one', async () => {
  const { cache, opened, closed, open } = counting(1);
  const held = deferred();
  const first = cache.use('a', open('a'), () => held.promise);
  await cache.use('b', open('b'), async () => undefined);
  const values: string[] = [];
  const again = cache.use('a', open('a'), async (value) => void values.push(value));
  await again;
  assert.deepEqual(opened, ['a', 'b'], 'a was not opened twice');
  assert.deepEqual(values, ['a#1']);
  held.resolve();
  await first;
  assert.equal(cache.size, 1);
  assert.ok(!closed.includes('a#1'), 'the entry taken back stays open after the old lease ends');
  await cache.close();
  assert.deepEqual(closed.sort(), ['a#1', 'b#2']);
});

test('an opening that fails is not kept, not even while another key is leased', async () => {
  const cache = new LeaseCache<string>({ capacity: 1, close: async () => undefined });
  let attempts = 0;
  const failing = async () => {
    attempts += 1;
    throw new Error('refused');
  };
  await assert.rejects(cache.use('a', failing, async () => undefined), /refused/);
  await assert.rejects(cache.use('a', failing, async () => undefined), /refused/);
  assert.equal(attempts, 2);
  assert.equal(cache.size, 0);
});
