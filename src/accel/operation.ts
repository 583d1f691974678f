// An accelerator operation is one JSON route in front of one worker task:
// POST a JSON body, the task parses, validates and works in a worker, and
// the answer is the accelerator's envelope around the task's `data`. Each
// route module (font, image, linearize, ...) is a declaration of this kind.
import type { Tier } from '../auth/tiers.js';
import type { AccelValue, OptionsOf, TaskMap, TaskName } from '../../workers/protocol.js';
import { dispatch } from '../http/dispatch.js';
import { accelEnvelope } from '../http/envelope.js';
import type { Route, RouteContext } from '../http/route.js';
import type { WorkerPool } from '../pool/pool.js';

/** The tasks that answer in the accelerator's envelope (workers/lib/json-task.ts). */
export type AccelTask = { [Name in TaskName]: TaskMap[Name]['value'] extends AccelValue ? Name : never }[TaskName];

export interface AccelOperation<Task extends AccelTask = AccelTask> {
  /** e.g. /v1/font/subset */
  readonly path: string;
  /** Minimum tier (accelerator spec, section 4). */
  readonly tier: Tier;
  /** The metrics' `operation` label and the name /api/v1/capabilities lists. */
  readonly operation: string;
  readonly task: Task;
  /** Options the task receives from the configuration (size caps, ...), as TaskMap types them. */
  readonly options: OptionsOf<Task>;
  /**
   * Work the main thread finishes when the task answers with something other
   * than the envelope's `data` (a request to a remote provider the worker
   * validated, a document to write to a vector store): it returns the `data` bytes.
   */
  readonly carryOut?: (value: AccelValue, context: RouteContext) => Promise<Uint8Array>;
}

/** One declaration per task, each checked against its own task's options. */
export type AnyAccelOperation = { [Task in AccelTask]: AccelOperation<Task> }[AccelTask];

export function accelRoute<Task extends AccelTask>(pool: WorkerPool, apiVersion: string, declared: AccelOperation<Task>): Route {
  return {
    method: 'POST',
    path: declared.path,
    auth: declared.tier,
    body: 'json',
    operation: declared.operation,
    async handle(context) {
      const value = await dispatch(pool, context, declared.task, declared.options);
      const data = value.mediaType !== 'application/json' && declared.carryOut !== undefined ? await declared.carryOut(value, context) : new Uint8Array(value.body);
      return {
        status: 200,
        mediaType: 'application/json',
        body: accelEnvelope(data, {
          requestId: context.requestId,
          receivedAt: context.receivedAt,
          apiVersion,
          workerId: value.meta.workerId,
          cached: value.meta.cached,
        }),
      };
    },
  };
}
