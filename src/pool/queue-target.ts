// The queue's target wait (CoDel's "target", RFC 8289), derived from
// measurement unless PLATEN_QUEUE_TARGET_MS sets it: twice the task's recent
// service time, between MIN_TARGET_MS and CoDel's 10 % of the interval
// (RFC 8289 section 4.3: the target is 5-10 % of the interval; with the
// default 100 ms interval that is the old 10 ms constant).
//
// Two service times because the figure admission is read against is the
// render at saturation, two requests per thread in a closed loop, where a
// request waits about one service time: an admitted request then waits at
// most about two and is answered within about three (1.5x), whatever the
// task costs. With the 10 ms constant a 2-3 ms letter was admitted behind
// 3-5 others (bench/results/last-full-run: admitted p99 32.8 ms under 4x
// overload against 10-15 ms at saturation in the interleaved render rounds).

/** A derived target is this many times the task's recent service time. */
export const TARGET_SERVICE_TIMES = 2;

/**
 * The lowest derived target: a task's hand-off to a worker and back costs
 * tenths of a millisecond of the main thread's event loop, so a tighter
 * target would refuse a queue of sub-millisecond tasks that drains within a
 * few turns of the loop.
 */
export const MIN_TARGET_MS = 1;

/** The highest derived target as a share of the interval: CoDel's 5-10 % (RFC 8289 section 4.3). */
export const MAX_TARGET_SHARE = 0.1;

/** The highest target a derived one reaches, and the one used before anything is known. */
export function targetCeilingMs(intervalMs: number): number {
  return intervalMs * MAX_TARGET_SHARE;
}

/**
 * The target for a task whose recent service time is `serviceMs` (0: none
 * ended yet, so nothing is known and the ceiling applies); `fixedMs` when
 * the deployment set one.
 */
export function queueTargetMs(serviceMs: number, intervalMs: number, fixedMs: number | undefined): number {
  if (fixedMs !== undefined) return fixedMs;
  const ceiling = targetCeilingMs(intervalMs);
  if (serviceMs <= 0) return ceiling;
  return Math.min(ceiling, Math.max(MIN_TARGET_MS, TARGET_SERVICE_TIMES * serviceMs));
}
