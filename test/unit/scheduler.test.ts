// The pool's scheduler without a pool: fair order between clients (round
// robin, weights, slots), synchronous work before jobs, the shared queue's
// push-out, and CoDel-style admission by expected wait, on an injected clock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FairQueue } from '../../src/pool/fair-queue.js';
import { retryAfterSeconds } from '../../src/pool/pool.js';
import { Scheduler, type Priority, type Ticket } from '../../src/pool/scheduler.js';

const A = { id: 'a', weight: 1 };
const B = { id: 'b', weight: 1 };

describe('fair queue', () => {
  test('one slot: clients take turns, each in its own order, whoever queued more', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push(A, item);
    queue.push(B, 'b1');
    queue.push(B, 'b2');
    const order: string[] = [];
    for (let next = queue.next(); next !== undefined; next = queue.next()) {
      order.push(next.item);
      queue.finished(next.client);
    }
    assert.deepEqual(order, ['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
  });

  test('a client that arrives behind a backlog is served next, not after it', () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 77; i++) queue.push(A, `a${i}`);
    for (let i = 0; i < 10; i++) queue.finished(queue.next()?.client as string);
    queue.push(B, 'b1');
    assert.equal(queue.next()?.item, 'b1');
  });

  test('weights: a client of weight 3 gets three turns for every one of weight 1', () => {
    const queue = new FairQueue<string>();
    const heavy = { id: 'h', weight: 3 };
    for (let i = 0; i < 8; i++) {
      queue.push(A, 'a');
      queue.push(heavy, 'h');
    }
    const first8: string[] = [];
    for (let i = 0; i < 8; i++) {
      const next = queue.next();
      first8.push(next?.item as string);
      queue.finished(next?.client as string);
    }
    assert.equal(first8.filter((item) => item === 'h').length, 6);
  });

  test('with several slots the next goes to the client holding the fewest running', () => {
    const queue = new FairQueue<string>();
    queue.push(A, 'a1');
    queue.push(A, 'a2');
    queue.push(A, 'a3');
    assert.equal(queue.next()?.item, 'a1');
    assert.equal(queue.next()?.item, 'a2');
    queue.push(B, 'b1');
    // a holds two threads, b none: b's task takes the next one even though a's waited longer.
    assert.equal(queue.next()?.item, 'b1');
  });

  test('removing a waiting item; idle clients are forgotten', () => {
    const queue = new FairQueue<string>();
    queue.push(A, 'a1');
    assert.equal(queue.remove('a', 'a1'), true);
    assert.equal(queue.remove('a', 'a1'), false);
    assert.equal(queue.size, 0);
    assert.deepEqual([...queue.clients()], []);
  });
});

/** A scheduler on a clock the test moves, and tickets that record what happened to them. */
function harness(options: { threads: number; maxQueue: number; targetMs?: number; intervalMs?: number }) {
  let now = 0;
  const scheduler = new Scheduler({ targetMs: 10, intervalMs: 100, ...options, now: () => now });
  const started: string[] = [];
  const evicted: string[] = [];
  const ticket = (name: string, client = A, priority: Priority = 'interactive', task = 'render'): Ticket => ({
    task,
    client,
    priority,
    enqueuedAt: 0,
    start: () => started.push(name),
    evict: () => evicted.push(name),
  });
  return {
    scheduler,
    started,
    evicted,
    ticket,
    advance: (ms: number) => (now += ms),
  };
}

describe('scheduler', () => {
  test('a free thread starts a task at once; a busy pool queues it; a full queue refuses', () => {
    const h = harness({ threads: 1, maxQueue: 1 });
    const first = h.ticket('a1');
    assert.equal(h.scheduler.submit(first), undefined);
    assert.deepEqual(h.started, ['a1']);
    assert.equal(h.scheduler.submit(h.ticket('a2')), undefined);
    assert.equal(h.scheduler.submit(h.ticket('a3')), 'full');
    h.scheduler.finished(first, 5);
    assert.deepEqual(h.started, ['a1', 'a2']);
  });

  test('synchronous tasks start before jobs that waited longer; jobs are never refused for a full queue', () => {
    const h = harness({ threads: 1, maxQueue: 0 });
    const running = h.ticket('sync1');
    h.scheduler.submit(running);
    assert.equal(h.scheduler.submit(h.ticket('job1', A, 'background')), undefined);
    assert.equal(h.scheduler.submit(h.ticket('job2', A, 'background')), undefined);
    const h2 = harness({ threads: 1, maxQueue: 1 });
    const first = h2.ticket('job0', A, 'background');
    h2.scheduler.submit(first);
    h2.scheduler.submit(h2.ticket('job1', A, 'background'));
    h2.scheduler.submit(h2.ticket('sync1'));
    h2.scheduler.finished(first, 1);
    assert.deepEqual(h2.started, ['job0', 'sync1']);
  });

  test('jobs take every idle thread while short; once long, they leave the last one to synchronous work', () => {
    const h = harness({ threads: 2, maxQueue: 4, targetMs: 10 });
    const j1 = h.ticket('j1', A, 'background');
    const j2 = h.ticket('j2', A, 'background');
    h.scheduler.submit(j1);
    h.scheduler.submit(j2);
    assert.deepEqual(h.started, ['j1', 'j2'], 'nothing known about jobs yet: both threads');
    h.scheduler.submit(h.ticket('j3', A, 'background'));
    h.scheduler.finished(j1, 500);
    h.scheduler.finished(j2, 500);
    assert.deepEqual(h.started, ['j1', 'j2', 'j3'], 'jobs of 500 ms: one thread stays free');
    assert.equal(h.scheduler.running, 1);
    assert.equal(h.scheduler.submit(h.ticket('sync')), undefined);
    assert.deepEqual(h.started.at(-1), 'sync', 'the free thread serves a synchronous request at once');
  });

  test('a full queue: a client below its share pushes out the newest task of the client above it', () => {
    const h = harness({ threads: 1, maxQueue: 3 });
    for (const name of ['a1', 'a2', 'a3', 'a4']) assert.equal(h.scheduler.submit(h.ticket(name, A)), undefined);
    assert.equal(h.scheduler.submit(h.ticket('b1', B)), undefined);
    assert.deepEqual(h.evicted, ['a4']);
    // a now holds 3 of 4 places, b one: b is at its share of 2 after a second, then refused like anyone at a full queue.
    assert.equal(h.scheduler.submit(h.ticket('b2', B)), undefined);
    assert.deepEqual(h.evicted, ['a4', 'a3']);
    assert.equal(h.scheduler.submit(h.ticket('b3', B)), 'full');
    assert.equal(h.scheduler.submit(h.ticket('a5', A)), 'full');
  });

  test('a lone client may fill every place', () => {
    const h = harness({ threads: 2, maxQueue: 6 });
    for (let i = 0; i < 8; i++) assert.equal(h.scheduler.submit(h.ticket(`a${i}`, A)), undefined);
    assert.equal(h.scheduler.submit(h.ticket('a8', A)), 'full');
    assert.deepEqual(h.evicted, []);
  });

  test('a burst is absorbed up to the queue size; a queue that stands longer than the interval admits by expected wait', () => {
    const h = harness({ threads: 1, maxQueue: 8, targetMs: 10, intervalMs: 100 });
    // Teach it that a render takes 6 ms.
    const warm = h.ticket('warm');
    h.scheduler.submit(warm);
    h.scheduler.finished(warm, 6);
    const running: Ticket[] = [];
    const submit = (name: string) => {
      const t = h.ticket(name);
      running.push(t);
      return h.scheduler.submit(t);
    };
    // A burst: 1 running + 8 waiting, all admitted although 8 × 6 ms is far over the target.
    for (let i = 0; i < 9; i++) assert.equal(submit(`burst${i}`), undefined);
    assert.equal(h.scheduler.standing, false);
    // New renders keep arriving as fast as they end: each waits behind eight 6 ms renders (~48 ms, over
    // the 10 ms target), and once that has lasted 100 ms the queue is standing.
    for (let i = 0; i < 20; i++) {
      h.advance(6);
      h.scheduler.finished(running.shift() as Ticket, 6);
      submit(`more${i}`);
    }
    assert.equal(h.scheduler.standing, true);
    // Expected wait of a new render: 8 waiting × 6 ms on one thread = 48 ms > 10 ms: refused at once.
    assert.equal(h.scheduler.submit(h.ticket('late')), 'standing');
    assert.ok(h.scheduler.expectedWaitMs(A, 'render') > 10);
    // Drain to one waiting: 6 ms ahead, within the target: admitted again.
    while (h.scheduler.waiting > 1) {
      h.advance(6);
      h.scheduler.finished(running.shift() as Ticket, 6);
    }
    assert.equal(h.scheduler.standing, true, 'still standing until the queue empties');
    assert.equal(h.scheduler.submit(h.ticket('fits')), undefined);
  });

  test('the expected wait counts only the work fair ordering puts ahead of the client', () => {
    const h = harness({ threads: 1, maxQueue: 20 });
    const warm = h.ticket('warm', A, 'interactive', 'image');
    h.scheduler.submit(warm);
    h.scheduler.finished(warm, 50);
    const warm2 = h.ticket('warm2', B);
    h.scheduler.submit(warm2);
    h.scheduler.finished(warm2, 5);
    for (let i = 0; i < 10; i++) h.scheduler.submit(h.ticket(`img${i}`, A, 'interactive', 'image'));
    // a: one running and nine 50 ms images waiting (450 ms); b's 5 ms render goes ahead of all but one of them.
    assert.ok(h.scheduler.expectedWaitMs(A, 'image') >= 450);
    assert.ok(h.scheduler.expectedWaitMs(B, 'render') <= 50);
  });

  test('Retry-After is the refused client\'s expected wait in whole seconds, at least one', () => {
    const h = harness({ threads: 2, maxQueue: 4 });
    const warm = h.ticket('warm', A, 'interactive', 'report');
    h.scheduler.submit(warm);
    h.scheduler.finished(warm, 900);
    for (let i = 0; i < 6; i++) assert.equal(h.scheduler.submit(h.ticket(`r${i}`, A, 'interactive', 'report')), undefined);
    assert.equal(h.scheduler.submit(h.ticket('late', A, 'interactive', 'report')), 'full');
    // Four 900 ms reports wait ahead of it on two threads: 1.8 s, so 2 s.
    assert.equal(h.scheduler.expectedWaitMs(A, 'report'), 1800);
    assert.equal(retryAfterSeconds(h.scheduler.expectedWaitMs(A, 'report')), 2);
    assert.equal(retryAfterSeconds(0), 1, 'nothing known yet: one second');
    assert.equal(retryAfterSeconds(1000), 1);
    assert.equal(retryAfterSeconds(1000.5), 2);
  });

  test('a queue that empties is a burst again, not a standing queue', () => {
    const h = harness({ threads: 1, maxQueue: 4, targetMs: 10, intervalMs: 100 });
    const tickets = ['t0', 't1', 't2', 't3'].map((name) => h.ticket(name));
    for (const t of tickets) h.scheduler.submit(t);
    h.advance(150);
    h.scheduler.finished(tickets[0] as Ticket, 1);
    h.advance(150);
    h.scheduler.finished(tickets[1] as Ticket, 1);
    assert.equal(h.scheduler.standing, true);
    // t3 starts: nothing waits any more.
    h.scheduler.finished(tickets[2] as Ticket, 1);
    assert.equal(h.scheduler.standing, false);
  });

  test('a synchronous task\'s service time is how long it held its thread, when that is longer than the worker\'s own time', () => {
    const h = harness({ threads: 1, maxQueue: 8, targetMs: 10 });
    const slow = h.ticket('slow');
    h.scheduler.submit(slow);
    // The worker says 2 ms, but the thread came free only 25 ms after the task started (a shared core).
    h.advance(25);
    h.scheduler.finished(slow, 2);
    assert.equal(h.scheduler.serviceMs('render'), 25);
    const quick = h.ticket('quick');
    h.scheduler.submit(quick);
    h.advance(1);
    h.scheduler.finished(quick, 3);
    assert.equal(h.scheduler.serviceMs('render'), 25 + 0.2 * (3 - 25), 'the worker\'s time when it is the longer');
    // Queued tasks count at the held time: three waiting renders are ~60 ms ahead on one thread, not ~6.
    const running = h.ticket('running');
    h.scheduler.submit(running);
    for (let i = 0; i < 3; i++) h.scheduler.submit(h.ticket(`w${i}`));
    assert.ok(h.scheduler.expectedWaitMs(A, 'render') > 60);
  });

  test('a job\'s service time stays the worker\'s own: a busy core does not keep jobs off the last idle thread', () => {
    const h = harness({ threads: 2, maxQueue: 4, targetMs: 10 });
    const j1 = h.ticket('j1', A, 'background');
    h.scheduler.submit(j1);
    h.advance(40);
    h.scheduler.finished(j1, 3);
    h.scheduler.submit(h.ticket('j2', A, 'background'));
    h.scheduler.submit(h.ticket('j3', A, 'background'));
    assert.deepEqual(h.started, ['j1', 'j2', 'j3']);
  });

  test('soon after a standing queue drained, one late start makes it standing again; long after, a burst is a burst', () => {
    const h = harness({ threads: 1, maxQueue: 4, targetMs: 10, intervalMs: 100 });
    const stand = () => {
      const tickets = ['t0', 't1', 't2', 't3'].map((name) => h.ticket(name));
      for (const t of tickets) h.scheduler.submit(t);
      for (const t of tickets.slice(0, 3)) {
        h.advance(150);
        h.scheduler.finished(t, 150);
      }
      return tickets[3] as Ticket;
    };
    let last = stand();
    assert.equal(h.scheduler.standing, false, 'drained');
    // 50 ms later (within 16 intervals) a new burst: its first late start is enough.
    h.advance(50);
    const burst = ['b0', 'b1', 'b2'].map((name) => h.ticket(name));
    for (const t of burst) h.scheduler.submit(t);
    h.advance(20);
    h.scheduler.finished(last, 20);
    assert.equal(h.scheduler.standing, true, 'b0 waited 20 ms, over the target, so soon after the drain');
    for (const t of burst) {
      h.advance(20);
      h.scheduler.finished(t, 20);
    }
    assert.equal(h.scheduler.standing, false);
    // Two seconds (20 intervals) later the drain is forgotten: one late start is a burst, not a standing queue.
    h.advance(2_000);
    last = h.ticket('r');
    h.scheduler.submit(last);
    h.scheduler.submit(h.ticket('late'));
    h.advance(20);
    h.scheduler.finished(last, 20);
    assert.equal(h.scheduler.standing, false);
  });

  test('a withdrawn ticket leaves the queue and never starts', () => {
    const h = harness({ threads: 1, maxQueue: 2 });
    const running = h.ticket('r');
    const waiting = h.ticket('w');
    h.scheduler.submit(running);
    h.scheduler.submit(waiting);
    assert.equal(h.scheduler.withdraw(waiting), true);
    assert.equal(h.scheduler.withdraw(running), false);
    h.scheduler.finished(running, 1);
    assert.deepEqual(h.started, ['r']);
  });
});
