// The server's own threads' CPU time, read from /proc/<pid>/task/<tid>/schedstat
// (its first field: the scheduler's run time in nanoseconds, proc(5) and the
// kernel's sched-stats.rst), or where the kernel keeps no schedstat from
// .../stat (utime + stime, fields 14 and 15, in clock ticks). The main
// thread is the task whose id is the process id. Node does not name its
// worker threads, so the Piscina workers are told apart by what they do:
// under a render load they are the `workers` busiest threads other than the
// main one by far (measured: ~1 s of CPU a second each, against tens of
// milliseconds for V8's platform threads, which serve every isolate, and
// libuv's). What is left is reported as "other" and belongs to no side.
//
// Why nanoseconds: a tick is 10 ms, and a round of 200 jobs costs the main
// thread ~100 ms, so per-job figures came out in steps of 0.05 ms (job-cost.ts
// printed 0.5, 0.55, 0.6 ms a job); the stat fields are the same run time,
// rounded down to ticks (the kernel scales utime + stime to it).
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: 100 on every Linux architecture Node runs on (sysconf(_SC_CLK_TCK)). */
const TICK_MS = 10;

export type ThreadTimes = ReadonlyMap<number, number>;

/** CPU milliseconds so far of each thread of `pid`; empty where /proc is not there. */
export function threadTimes(pid: number): ThreadTimes {
  const times = new Map<number, number>();
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return times;
  }
  for (const task of tasks) {
    try {
      times.set(Number(task), threadTime(`/proc/${pid}/task/${task}`));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

/** One thread's CPU milliseconds: schedstat's nanoseconds, else stat's ticks. */
function threadTime(dir: string): number {
  let schedstat: string | undefined;
  try {
    schedstat = readFileSync(`${dir}/schedstat`, 'latin1');
  } catch {
    // A kernel without CONFIG_SCHED_INFO: ticks it is.
  }
  if (schedstat !== undefined) return Number(schedstat.slice(0, schedstat.indexOf(' '))) / 1e6;
  const stat = readFileSync(`${dir}/stat`, 'latin1');
  // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * CPU milliseconds so far of the whole process (/proc/<pid>/stat): unlike
 * the sum of threadTimes, it keeps the time of threads that have ended
 * (libvips starts and ends its worker threads as it goes); NaN where /proc
 * is not there.
 */
export function processTime(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

export interface CpuSplit {
  readonly mainMs: number;
  readonly workersMs: number;
  readonly otherMs: number;
}

/** What each kind of thread spent between two readings. */
export function cpuSplit(pid: number, before: ThreadTimes, after: ThreadTimes, workers: number): CpuSplit {
  const deltas: Array<[number, number]> = [];
  for (const [tid, ms] of after) deltas.push([tid, ms - (before.get(tid) ?? 0)]);
  const mainMs = deltas.find(([tid]) => tid === pid)?.[1] ?? 0;
  const others = deltas.filter(([tid]) => tid !== pid).sort((x, y) => y[1] - x[1]);
  const workersMs = others.slice(0, workers).reduce((sum, [, ms]) => sum + ms, 0);
  const otherMs = others.slice(workers).reduce((sum, [, ms]) => sum + ms, 0);
  return { mainMs, workersMs, otherMs };
}

/**
 * Milliseconds thread `tid` of `pid` has spent runnable but waiting for a
 * core (/proc/<pid>/task/<tid>/schedstat, second field, in ns: the kernel's
 * sched_info run_delay); NaN where the kernel does not keep it. The CPU a
 * thread got says what it did; this says how long the machine kept it
 * waiting to do it.
 */
export function runQueueWaitMs(pid: number, tid: number = pid): number {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').trim().split(' ');
    return Number(fields[1]) / 1e6;
  } catch {
    return Number.NaN;
  }
}
