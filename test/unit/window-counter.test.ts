// The in-memory rate-limit counter (src/http/window-counter.ts) on an
// injected clock: a key's window opens at its first request, refuses past
// its points with the time left, opens anew once over, and expired keys are
// swept so that the map stays bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WindowCounter } from '../../src/http/window-counter.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

test('allows `points` requests in a window, then refuses with the milliseconds left', () => {
  const time = clock();
  const counter = new WindowCounter(3, 60_000, time.now);
  assert.equal(counter.consume('a'), 0);
  time.advance(10_000);
  assert.equal(counter.consume('a'), 0);
  assert.equal(counter.consume('a'), 0);
  assert.equal(counter.consume('a'), 50_000);
  time.advance(20_000);
  assert.equal(counter.consume('a'), 30_000, 'refused requests still count, as RateLimiterMemory counted them');
  assert.equal(counter.consume('b'), 0, 'another key has its own window');
});

test('a window opens anew at the first request after it ended', () => {
  const time = clock();
  const counter = new WindowCounter(1, 60_000, time.now);
  assert.equal(counter.consume('a'), 0);
  assert.equal(counter.consume('a'), 60_000);
  time.advance(60_000);
  assert.equal(counter.consume('a'), 0);
  time.advance(59_999);
  assert.equal(counter.consume('a'), 1);
});

test('no points: every request is refused', () => {
  const counter = new WindowCounter(0, 60_000, clock().now);
  assert.equal(counter.consume('a'), 60_000);
});

test('keys whose window ended are swept, at most once a window', () => {
  const time = clock();
  const counter = new WindowCounter(5, 60_000, time.now);
  for (let i = 0; i < 100; i++) counter.consume(`ip-${i}`);
  assert.equal(counter.size, 100);
  time.advance(30_000);
  counter.consume('late');
  assert.equal(counter.size, 101, 'nothing has expired yet');
  time.advance(30_000);
  counter.consume('late');
  assert.equal(counter.size, 1, 'the 100 windows ended at the sweep; the late key is still open');
});
