// src/pool/thread-readiness.ts without a pool: a task handed to Piscina is on
// a thread only when a ready thread is free for it, first in first out; a
// thread being replaced (destroyed, not yet created again) takes none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { ThreadReadiness } from '../../src/pool/thread-readiness.js';

function setUp(threads: number) {
  const piscina = new EventEmitter();
  const readiness = new ThreadReadiness(threads, piscina);
  const onThread: string[] = [];
  const hand = (name: string) => readiness.handed(() => onThread.push(name));
  return { piscina, readiness, onThread, hand };
}

test('no task is on a thread before a thread is ready; each ready thread takes one, in order', () => {
  const { piscina, readiness, onThread, hand } = setUp(2);
  assert.equal(readiness.starting, 2);
  hand('a');
  hand('b');
  hand('c');
  assert.deepEqual(onThread, []);
  piscina.emit('workerCreate');
  assert.deepEqual(onThread, ['a']);
  piscina.emit('workerCreate');
  assert.deepEqual(onThread, ['a', 'b']);
  assert.equal(readiness.starting, 0);
});

test('a task that ends frees its thread for the next; one that ends unplaced leaves the queue', () => {
  const { piscina, readiness, onThread, hand } = setUp(1);
  piscina.emit('workerCreate');
  const a = hand('a');
  hand('b');
  const c = hand('c');
  hand('d');
  readiness.ended(c);
  readiness.ended(a);
  assert.deepEqual(onThread, ['a', 'b']);
});

test('a thread stopped at the timeout takes nothing until its replacement is ready', () => {
  const { piscina, readiness, onThread, hand } = setUp(1);
  piscina.emit('workerCreate');
  const runaway = hand('runaway');
  // Aborting a running task terminates its thread: Piscina destroys it, then rejects the task.
  piscina.emit('workerDestroy');
  readiness.ended(runaway);
  assert.equal(readiness.starting, 1);
  hand('follow-up');
  assert.deepEqual(onThread, ['runaway'], 'the follow-up waits for the replacement');
  piscina.emit('workerCreate');
  assert.deepEqual(onThread, ['runaway', 'follow-up']);
  assert.equal(readiness.starting, 0);
});
