// The `session-operation` task: one operation added to a session. The body
// is the route's payload (a JSON object of the operation's fields); the
// route decides the type, so a payload cannot smuggle in another one. The
// operation is validated exactly as inside a RenderRequest, and its
// normalised JSON is returned for the session to keep and replay. In a
// PDF/UA session an image must carry its alt (tagging/alt-check.ts); in
// every session the images and font it carries must be ones the render can
// read (session-preflight.ts).
import { performance } from 'node:perf_hooks';
import type { FieldError, Outcome, SessionOperationOptions, TaskInput } from '../protocol.js';
import { readJsonRequest, refuse } from '../task/json-request.js';
import { movable, ownBuffer } from '../task/transfer.js';
import { summarize } from '../task/validation.js';
import { RenderRequest, normalizeAliases } from './schema.js';
import { preflight } from './session-preflight.js';
import { missingAlt } from './tagging/alt-check.js';

const PREFIX = 'operations[0].';

const TYPE_FROM_ROUTE: FieldError = { field: 'type', code: 'UNKNOWN_FIELD', message: 'The route decides the operation type; leave type out of the payload.' };

export async function sessionOperation(input: TaskInput<SessionOperationOptions>): Promise<Outcome> {
  const started = performance.now();
  const timings = () => ({ taskMs: performance.now() - started });
  const { type, pageSize, orientation } = input.options;
  let operation: Record<string, unknown> = {};
  const read = readJsonRequest(input.body, input.length, RenderRequest, {
    // An empty body is an operation with no fields (POST .../pages may have none).
    emptyBody: {},
    prepare: (payload) => {
      if ('type' in payload || 'op' in payload) return refuse(TYPE_FROM_ROUTE);
      operation = { ...payload, type };
      return normalizeAliases({ page_size: pageSize, orientation, operations: [operation] });
    },
    // Paths are reported as the client wrote them: in its payload, not in a wrapping request.
    fieldPath: (path) => (path.startsWith(PREFIX) ? path.slice(PREFIX.length) : path),
  });
  if (!read.ok) return { ok: false, code: read.code, detail: read.detail, ...(read.errors === undefined ? {} : { errors: read.errors }), timings: timings() };
  const refused = input.options.pdfUa === true ? missingAlt(read.value.operations[0] as { type: string } & Record<string, unknown>, '') : undefined;
  if (refused !== undefined) return { ok: false, code: 'invalid', detail: summarize([refused]), errors: [refused], timings: timings() };
  const unrenderable = await preflight(read.value.operations[0] as { type: string } & Record<string, unknown>);
  if (unrenderable !== undefined) return { ok: false, code: 'invalid', detail: summarize(unrenderable), errors: unrenderable, timings: timings() };
  const json = new TextEncoder().encode(JSON.stringify(operation));
  return movable({ ok: true, value: { body: ownBuffer(json), mediaType: 'application/json' }, timings: timings() });
}
