// Per-task pool figures, recorded by the pool (src/pool/pool.ts) as each task
// ends and read by the exposition at scrape time: how long tasks waited for a
// thread, how long they ran, and how they ended. Allocation-free per task
// once a task name has been seen (see buckets.ts).
import { Buckets } from './buckets.js';

/** How a task ended: `completed` when the worker returned an Outcome (success or an expected failure), else the pool's reason. */
export const TASK_ENDINGS = ['completed', 'saturated', 'breaker_open', 'timeout', 'aborted', 'out_of_memory', 'crashed'] as const;
export type TaskEnding = (typeof TASK_ENDINGS)[number];

export class TaskSeries {
  /** From handing the task to the pool until a worker started it (round trip minus the worker's own time). */
  readonly wait = new Buckets();
  /** Inside the worker, as the worker measured it. */
  readonly run = new Buckets();
  /** Tasks per ending, indexed like TASK_ENDINGS. */
  readonly endings = new Float64Array(TASK_ENDINGS.length);

  constructor(readonly task: string) {}
}

export class TaskStats {
  readonly #byTask = new Map<string, TaskSeries>();

  /** A task that ran to an Outcome. */
  completed(task: string, waitSeconds: number, runSeconds: number): void {
    const series = this.#series(task);
    series.wait.observe(waitSeconds);
    series.run.observe(runSeconds);
    series.endings[0] = (series.endings[0] as number) + 1;
  }

  /** A task that produced no Outcome (refused, stopped, or crashed). */
  failed(task: string, ending: Exclude<TaskEnding, 'completed'>): void {
    const series = this.#series(task);
    const i = TASK_ENDINGS.indexOf(ending);
    series.endings[i] = (series.endings[i] as number) + 1;
  }

  series(): Iterable<TaskSeries> {
    return this.#byTask.values();
  }

  #series(task: string): TaskSeries {
    let series = this.#byTask.get(task);
    if (series === undefined) {
      series = new TaskSeries(task);
      this.#byTask.set(task, series);
    }
    return series;
  }
}
