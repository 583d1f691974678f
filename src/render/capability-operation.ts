// A capability operation of the render API (render spec sections 1 and 4) is
// one route in front of one worker task: POST /api/v1/<operation> with a JSON
// CapabilityPayload (PDFs as base64 members), parsed, validated and worked on
// in a worker. The route adds nothing but the answer's framing:
// - result `binary`: the task's bytes as they are (application/pdf, or
//   application/zip for several parts), with a Content-Disposition naming
//   the file and any headers the task says go with it (X-Redactions);
// - result `json`: the task's serialised `data`, spliced into the render
//   API's SuccessEnvelope without being parsed again.
// Registration by edition, the tier check (403 capability-denied), the
// listing in /api/v1/capabilities and the approval gate all key on the
// route's `auth` and `operation`, so a declaration gets them for free.
import type { Tier } from '../auth/tiers.js';
import type { OptionsOf, TaskName } from '../../workers/protocol.js';
import { dispatch } from '../http/dispatch.js';
import { renderEnvelopeBytes } from '../http/envelope.js';
import type { Route } from '../http/route.js';
import type { WorkerPool } from '../pool/pool.js';

export interface CapabilityOperation<Task extends TaskName = TaskName> {
  /** The path segment after /api/v1/ and the name /api/v1/capabilities lists (e.g. `merge`). */
  readonly operation: string;
  /** Minimum tier (render spec section 4): the route exists from this edition up, and keys below it get 403. */
  readonly tier: Tier;
  readonly task: Task;
  /** `binary`: the task's bytes are the response; `json`: they are the SuccessEnvelope's `data`. */
  readonly result: 'binary' | 'json';
  /** Options the task receives from the configuration (page and size caps, ...), as TaskMap types them. */
  readonly options: OptionsOf<Task>;
}

/** One declaration per task, each checked against its own task's options. */
export type AnyCapabilityOperation = { [Task in TaskName]: CapabilityOperation<Task> }[TaskName];

/** File name stems of binary results, by media type. */
const EXTENSIONS: Readonly<Record<string, string>> = { 'application/pdf': 'pdf', 'application/zip': 'zip' };

export function capabilityRoute<Task extends TaskName>(pool: WorkerPool, apiVersion: string, declared: CapabilityOperation<Task>): Route {
  return {
    method: 'POST',
    path: `/api/v1/${declared.operation}`,
    auth: declared.tier,
    body: 'json',
    operation: declared.operation,
    async handle(context) {
      const value = await dispatch(pool, context, declared.task, declared.options);
      if (declared.result === 'json') {
        return {
          status: 200,
          mediaType: 'application/json',
          body: renderEnvelopeBytes(new Uint8Array(value.body), { requestId: context.requestId, receivedAt: context.receivedAt, apiVersion }),
        };
      }
      const extension = EXTENSIONS[value.mediaType] ?? 'bin';
      // A ZIP of parts is a download; a single PDF may be shown in place.
      const disposition = extension === 'zip' ? 'attachment' : 'inline';
      return {
        status: 200,
        mediaType: value.mediaType,
        body: value.body,
        headers: [['Content-Disposition', `${disposition}; filename="${declared.operation}.${extension}"`], ...(value.headers ?? [])],
      };
    },
  };
}
