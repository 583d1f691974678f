// The queue's target derived from measured service time (queue-target.ts)
// and the scheduler's admission with it, on an injected clock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_TARGET_MS, queueTargetMs, TARGET_SERVICE_TIMES } from '../../src/pool/queue-target.js';
import { Scheduler, type Ticket } from '../../src/pool/scheduler.js';

const A = { id: 'a', weight: 1 };

/** A scheduler on a clock the test moves; `running` holds the started tickets, oldest first. */
function harness(options: { threads: number; maxQueue: number; targetMs?: number; intervalMs?: number }) {
  let now = 0;
  const scheduler = new Scheduler({ targetMs: undefined, intervalMs: 100, ...options, now: () => now });
  const running: Ticket[] = [];
  const ticket = (task = 'render'): Ticket => {
    const t: Ticket = { task, client: A, priority: 'interactive', enqueuedAt: 0, start: () => void running.push(t), evict: () => undefined };
    return t;
  };
  /** Ends the oldest running task after it held its thread since it started. */
  const finishOldest = () => {
    const t = running.shift() as Ticket;
    scheduler.finished(t, 3);
  };
  return { scheduler, ticket, running, finishOldest, advance: (ms: number) => (now += ms) };
}

type Harness = ReturnType<typeof harness>;

/** Teaches the scheduler that a render holds its thread `ms` (nothing else running). */
function teach(h: Harness, ms: number): void {
  h.scheduler.submit(h.ticket());
  h.advance(ms);
  h.finishOldest();
}

/**
 * Every thread busy with 3 ms renders and `depth` waiting, for `ms`: each
 * step the threads finish together and as many renders arrive.
 */
function keepQueue(h: Harness, threads: number, depth: number, ms: number): void {
  for (let i = 0; i < threads + depth; i++) h.scheduler.submit(h.ticket());
  for (let t = 0; t < ms; t += 3) {
    h.advance(3);
    for (let i = 0; i < threads; i++) h.finishOldest();
    for (let i = 0; i < threads; i++) h.scheduler.submit(h.ticket());
  }
}

describe('queue target', () => {
  test('twice the recent service time, within 1 ms and 10 % of the interval; a set value wins', () => {
    assert.equal(TARGET_SERVICE_TIMES, 2);
    assert.equal(queueTargetMs(2.5, 100, undefined), 5);
    assert.equal(queueTargetMs(0.2, 100, undefined), MIN_TARGET_MS, 'sub-millisecond tasks: the floor');
    assert.equal(queueTargetMs(50, 100, undefined), 10, 'long tasks: CoDel\'s 10 % of the interval');
    assert.equal(queueTargetMs(50, 400, undefined), 40);
    assert.equal(queueTargetMs(0, 100, undefined), 10, 'nothing measured yet: the ceiling');
    assert.equal(queueTargetMs(2.5, 100, 25), 25, 'PLATEN_QUEUE_TARGET_MS set');
  });

  test('the scheduler\'s target follows each task\'s measured time; a set target stays', () => {
    const h = harness({ threads: 2, maxQueue: 8 });
    assert.equal(h.scheduler.targetMs('render'), 10);
    teach(h, 3);
    assert.equal(h.scheduler.targetMs('render'), 6);
    const fixed = harness({ threads: 2, maxQueue: 8, targetMs: 10 });
    teach(fixed, 3);
    assert.equal(fixed.scheduler.targetMs('render'), 10);
  });

  test('3 ms renders waiting 9 ms for an interval: standing against 2 × 3 ms, a good queue against the old 10 ms', () => {
    const derived = harness({ threads: 1, maxQueue: 8 });
    const constant = harness({ threads: 1, maxQueue: 8, targetMs: 10 });
    for (const h of [derived, constant]) {
      teach(h, 3);
      keepQueue(h, 1, 3, 150);
      assert.equal(h.scheduler.serviceMs('render'), 3);
    }
    assert.equal(constant.scheduler.standing, false);
    assert.equal(constant.scheduler.submit(constant.ticket()), undefined);
    assert.equal(derived.scheduler.standing, true);
    // Three renders wait: a fourth would wait 9 ms, over 6.
    assert.equal(derived.scheduler.expectedWaitMs(A, 'render'), 9);
    assert.equal(derived.scheduler.submit(derived.ticket()), 'standing');
    // Two waiting (6 ms ahead): within the target again.
    derived.advance(3);
    derived.finishOldest();
    assert.equal(derived.scheduler.submit(derived.ticket()), undefined);
  });
});
