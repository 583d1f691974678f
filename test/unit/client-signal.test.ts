// The per-request "client went away" signal (src/http/client-signal.ts)
// behaves as the AbortSignal it replaces on the hot path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientSignal } from '../../src/http/client-signal.js';

test('every listener runs once on abort, a removed one never', () => {
  const gone = new ClientSignal();
  const calls: string[] = [];
  const removed = () => calls.push('removed');
  gone.addEventListener('abort', () => calls.push('body'), { once: true });
  gone.addEventListener('abort', removed, { once: true });
  gone.addEventListener('abort', () => calls.push('pool'), { once: true });
  gone.removeEventListener('abort', removed);
  assert.equal(gone.aborted, false);
  gone.abort();
  gone.abort();
  assert.equal(gone.aborted, true);
  assert.deepEqual(calls, ['body', 'pool']);
});

test('a listener added after the abort does not run, as on an AbortSignal', () => {
  const gone = new ClientSignal();
  gone.abort();
  let ran = false;
  gone.addEventListener('abort', () => (ran = true));
  const reference = AbortSignal.abort();
  reference.addEventListener('abort', () => (ran = true));
  assert.equal(ran, false);
});

test('its AbortSignal fires with it, whether read before or after the abort', () => {
  const early = new ClientSignal();
  const signal = early.signal;
  let fired = 0;
  signal.addEventListener('abort', () => fired++);
  assert.equal(signal.aborted, false);
  early.abort();
  assert.equal(signal.aborted, true);
  assert.equal(fired, 1);
  assert.equal(early.signal, signal);

  const late = new ClientSignal();
  late.abort();
  assert.equal(late.signal.aborted, true);
});
