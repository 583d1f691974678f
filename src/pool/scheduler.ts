// Who gets the next worker thread, and who is refused at the door. The pool
// hands a task to Piscina only when a thread is free; until then it waits
// here, so the order is ours rather than Piscina's first-in-first-out:
//
// - Synchronous (interactive) work first; jobs (background) take a thread
//   only when no synchronous task waits (issue 14: jobs use every idle
//   worker, not a fixed workers - 1). A job takes the *last* idle thread
//   only while jobs are short (their recent service time within the
//   target), since a running task cannot be pre-empted: a synchronous
//   request arriving just after waits for it. Long jobs leave one thread to
//   synchronous work (with one thread, they take it).
// - Between clients, the fair queue (fair-queue.ts): the next thread goes to
//   the waiting client with the fewest running tasks per unit of weight.
// - Queue places are shared the same way (issue 9): a client may fill every
//   place while nobody else wants one, but when the queue is full and a
//   client below its weighted share of the places (threads + queue) asks,
//   the newest waiting task of the client furthest above its share is
//   refused to make room: longest-queue drop, the buffer-sharing policy
//   shown fair by Wei, Coyle and Hsiao (1998).
// - Admission by expected wait (issue 14), after CoDel (RFC 8289): a queue
//   that drains quickly is a good queue and absorbs bursts up to
//   PLATEN_MAX_QUEUE; once every task started for `intervalMs` has waited
//   longer than `targetMs`, the queue is standing, and from then until it
//   drains a task is admitted only if its expected wait (the work queued
//   ahead of it under fair ordering, from each task's recent service time,
//   divided by the threads) is within the target. A queue of one task per
//   thread is always allowed: it keeps every thread fed between completions.
//   Refusals are answered at once, never after a wait.
// - A synchronous task's service time, for that estimate, is how long it
//   held its thread as the queue sees it (start to finished() on our clock),
//   not only the worker's own time for it: what drains the queue is the
//   rate threads come free. Under 4x overload on two shared cores the
//   workers measured 2-4 ms a letter while each thread came free only every
//   ~25 ms (the load generator and the 503 path took the cores), so the
//   estimate from worker time admitted queues that waited 50-650 ms against
//   a 10 ms target (bench/scheduling-rounds.ts, in-server queue_ms, load 15).
// - A queue that stood and drained remembers it, as CoDel keeps its drop
//   count when it re-enters dropping soon after leaving it (RFC 8289
//   section 5.5, 16 intervals): within RECALL_INTERVALS intervals of the
//   drain, one task that waited over the target makes it standing again,
//   without a whole interval of such waits. Under sustained overload the
//   queue empties for a moment now and then; each time it used to become a
//   "burst" queue again, take PLATEN_MAX_QUEUE tasks and make them wait the
//   whole interval behind each other.
// - The target is derived from each task's service time unless
//   PLATEN_QUEUE_TARGET_MS sets it (queue-target.ts).
import type { FairClient } from './fair-queue.js';
import { FairQueue } from './fair-queue.js';
import { queueTargetMs, targetCeilingMs } from './queue-target.js';

export type Priority = 'interactive' | 'background';

export interface Ticket {
  readonly task: string;
  readonly client: FairClient;
  readonly priority: Priority;
  /** Set by the scheduler when the ticket starts waiting. */
  enqueuedAt: number;
  /** A thread is this ticket's: hand the task to Piscina now. */
  start(): void;
  /** Pushed out of the queue to make room for a client below its share: answer 503. */
  evict(): void;
}

export interface SchedulerOptions {
  readonly threads: number;
  /** Synchronous tasks that may wait for a thread (PLATEN_MAX_QUEUE). */
  readonly maxQueue: number;
  /** Acceptable queue wait (PLATEN_QUEUE_TARGET_MS); undefined: derived per task (targetMs()). */
  readonly targetMs: number | undefined;
  /** How long waits must stay above the target before admission tightens (PLATEN_QUEUE_INTERVAL_MS). */
  readonly intervalMs: number;
  /** Milliseconds, monotonic; tests pass their own. */
  readonly now: () => number;
}

/** Weight of the newest service times in the per-task moving averages. */
const SMOOTHING = 0.2;
/** How many intervals after a standing queue drained one late task makes it standing again (RFC 8289's 16). */
const RECALL_INTERVALS = 16;

export class Scheduler {
  readonly #interactive = new FairQueue<Ticket>();
  readonly #background: Ticket[] = [];
  readonly #serviceMs = new Map<string, number>();
  /** When each running synchronous ticket was given its thread. */
  readonly #startedAt = new Map<Ticket, number>();
  /** Recent service time of background tasks, whatever their name. */
  #backgroundMs = 0;
  #running = 0;
  /** When the first task that waited longer than the target started, while every one since did too. */
  #aboveSince: number | undefined;
  #standing = false;
  /** When the queue last stopped standing (it drained). */
  #drainedAt: number | undefined;

  constructor(private readonly options: SchedulerOptions) {}

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#interactive.size + this.#background.length;
  }

  /**
   * Whether a background task submitted now would start at once: a thread
   * free, nothing waiting for one (synchronous or background), and the
   * last-thread rule met.
   */
  get backgroundStartsNow(): boolean {
    return this.#running < this.options.threads && this.#interactive.size === 0 && this.#background.length === 0 && this.#backgroundMayStart();
  }

  /** True while the queue is standing and admission goes by expected wait. */
  get standing(): boolean {
    return this.#standing;
  }

  /** Queues or starts the ticket; returns why when it is refused (answer 503 at once). */
  submit(ticket: Ticket): 'full' | 'standing' | undefined {
    ticket.enqueuedAt = this.options.now();
    if (ticket.priority === 'background') {
      this.#background.push(ticket);
      this.#pump();
      return undefined;
    }
    if (this.#running < this.options.threads && this.#interactive.size === 0) {
      this.#interactive.started(ticket.client);
      this.#begin(ticket);
      return undefined;
    }
    if (!this.#admits(ticket)) return 'standing';
    if (this.#interactive.size >= this.options.maxQueue) {
      const victim = this.#victimFor(ticket.client);
      if (victim === undefined) return 'full';
      this.#interactive.remove(victim.client.id, victim);
      victim.evict();
    }
    this.#interactive.push(ticket.client, ticket);
    this.#pump();
    return undefined;
  }

  /** Takes back a ticket that has not started (its caller left or timed out); false if it already started. */
  withdraw(ticket: Ticket): boolean {
    if (ticket.priority === 'background') {
      const index = this.#background.indexOf(ticket);
      if (index < 0) return false;
      this.#background.splice(index, 1);
      return true;
    }
    return this.#interactive.remove(ticket.client.id, ticket);
  }

  /**
   * A started ticket's task ended after `serviceMs` (worker-measured, or
   * the time it held its thread when it produced no outcome: a job stopped
   * at its timeout was at least that long). A synchronous task counts as
   * the longer of that and the time it held its thread on our clock.
   */
  finished(ticket: Ticket, serviceMs: number): void {
    this.#running -= 1;
    if (ticket.priority === 'interactive') {
      this.#interactive.finished(ticket.client.id);
      const startedAt = this.#startedAt.get(ticket);
      this.#startedAt.delete(ticket);
      const heldMs = startedAt === undefined ? serviceMs : Math.max(serviceMs, this.options.now() - startedAt);
      const previous = this.#serviceMs.get(ticket.task);
      this.#serviceMs.set(ticket.task, previous === undefined ? heldMs : previous + SMOOTHING * (heldMs - previous));
    } else {
      this.#backgroundMs = this.#backgroundMs === 0 ? serviceMs : this.#backgroundMs + SMOOTHING * (serviceMs - this.#backgroundMs);
    }
    this.#pump();
    if (this.#interactive.size === 0) {
      // The queue drained: whatever it held was a burst, not a standing queue.
      if (this.#standing) this.#drainedAt = this.options.now();
      this.#standing = false;
      this.#aboveSince = undefined;
    }
  }

  /** Recent service time of a task, 0 before the first one ended (nothing known: nothing refused for it). */
  serviceMs(task: string): number {
    return this.#serviceMs.get(task) ?? 0;
  }

  /** The wait a new task of `client` would have before a thread is free for it, under fair ordering. */
  expectedWaitMs(client: FairClient, task: string): number {
    const own = this.#interactive.client(client.id);
    const ownAhead = own === undefined ? 0 : this.#work(own.waiting);
    const reach = (ownAhead + this.serviceMs(task)) / client.weight;
    let ahead = ownAhead;
    for (const other of this.#interactive.clients()) {
      if (other.id !== client.id) ahead += Math.min(this.#work(other.waiting), reach * other.weight);
    }
    return ahead / this.options.threads;
  }

  /** The acceptable wait for a task (queue-target.ts). */
  targetMs(task: string): number {
    return queueTargetMs(this.serviceMs(task), this.options.intervalMs, this.options.targetMs);
  }

  #admits(ticket: Ticket): boolean {
    if (!this.#standing || this.#interactive.size < this.options.threads) return true;
    return this.expectedWaitMs(ticket.client, ticket.task) <= this.targetMs(ticket.task);
  }

  /**
   * The newest waiting ticket of the client furthest above its weighted
   * share of the places, if `client` is below its own share; else none.
   */
  #victimFor(client: FairClient): Ticket | undefined {
    const places = this.options.threads + this.options.maxQueue;
    let totalWeight = client.weight;
    for (const other of this.#interactive.clients()) if (other.id !== client.id) totalWeight += other.weight;
    const own = this.#interactive.client(client.id);
    const held = own === undefined ? 0 : own.running + own.waiting.length;
    if (held + 1 > (places * client.weight) / totalWeight) return undefined;
    let victim: { readonly waiting: readonly Ticket[]; readonly excess: number } | undefined;
    for (const other of this.#interactive.clients()) {
      const otherHeld = other.running + other.waiting.length;
      if (other.id === client.id || other.waiting.length === 0 || otherHeld <= (places * other.weight) / totalWeight) continue;
      const excess = otherHeld / other.weight;
      if (victim === undefined || excess > victim.excess) victim = { waiting: other.waiting, excess };
    }
    return victim?.waiting[victim.waiting.length - 1];
  }

  #work(tickets: readonly Ticket[]): number {
    let sum = 0;
    for (const ticket of tickets) sum += this.serviceMs(ticket.task);
    return sum;
  }

  #pump(): void {
    while (this.#running < this.options.threads) {
      const next = this.#interactive.next()?.item ?? (this.#backgroundMayStart() ? this.#background.shift() : undefined);
      if (next === undefined) return;
      if (next.priority === 'interactive') this.#observeWait(this.options.now() - next.enqueuedAt, this.targetMs(next.task));
      this.#begin(next);
    }
  }

  /** Called with a thread free and no synchronous task waiting. */
  #backgroundMayStart(): boolean {
    const last = this.#running === this.options.threads - 1;
    return !last || this.options.threads === 1 || this.#backgroundMs <= (this.options.targetMs ?? targetCeilingMs(this.options.intervalMs));
  }

  #begin(ticket: Ticket): void {
    this.#running += 1;
    // Background tasks keep their worker-measured time: it says how long a job
    // would keep a synchronous request from the last idle thread.
    if (ticket.priority === 'interactive') this.#startedAt.set(ticket, this.options.now());
    ticket.start();
  }

  /** CoDel's detector: waits above the target for a whole interval mean a standing queue. */
  #observeWait(waitedMs: number, targetMs: number): void {
    if (waitedMs <= targetMs) {
      this.#aboveSince = undefined;
      return;
    }
    const now = this.options.now();
    this.#aboveSince ??= now;
    const recalled = this.#drainedAt !== undefined && now - this.#drainedAt < RECALL_INTERVALS * this.options.intervalMs;
    if (recalled || now - this.#aboveSince >= this.options.intervalMs) this.#standing = true;
  }
}
