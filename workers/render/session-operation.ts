// The `session-operation` task: one operation added to a session. The body
// is the route's payload (a JSON object of the operation's fields); the
// route decides the type, so a payload cannot smuggle in another one. The
// operation is validated exactly as inside a RenderRequest, and its
// normalised JSON is returned for the session to keep and replay.
import { performance } from 'node:perf_hooks';
import * as v from 'valibot';
import type { FieldError, Outcome, SessionOperationOptions, TaskInput } from '../protocol.js';
import { NOT_AN_OBJECT, isJsonObject, parseJson } from '../task/json.js';
import { movable, ownBuffer } from '../task/transfer.js';
import { summarize, toFieldErrors } from '../task/validation.js';
import { RenderRequest, normalizeAliases } from './schema.js';

const PREFIX = 'operations[0].';

export async function sessionOperation(input: TaskInput<SessionOperationOptions>): Promise<Outcome> {
  const started = performance.now();
  const timings = () => ({ taskMs: performance.now() - started });
  const { type, pageSize, orientation } = input.options;
  // An empty body is an operation with no fields (POST .../pages may have none).
  const parsed = input.length === 0 ? { ok: true as const, value: {} } : parseJson(input.body, input.length);
  if (!parsed.ok) return { ok: false, code: 'malformed', detail: parsed.detail, timings: timings() };
  if (!isJsonObject(parsed.value)) return { ok: false, code: 'invalid', detail: NOT_AN_OBJECT.message, errors: [NOT_AN_OBJECT], timings: timings() };
  if ('type' in parsed.value || 'op' in parsed.value) {
    const error: FieldError = { field: 'type', code: 'UNKNOWN_FIELD', message: 'The route decides the operation type; leave type out of the payload.' };
    return { ok: false, code: 'invalid', detail: summarize([error]), errors: [error], timings: timings() };
  }
  const operation = { ...parsed.value, type };
  const validated = v.safeParse(RenderRequest, normalizeAliases({ page_size: pageSize, orientation, operations: [operation] }));
  if (!validated.success) {
    // Paths are reported as the client wrote them: in its payload, not in a wrapping request.
    const errors = toFieldErrors(validated.issues).map((e) => ({ ...e, field: e.field.startsWith(PREFIX) ? e.field.slice(PREFIX.length) : e.field }));
    return { ok: false, code: 'invalid', detail: summarize(errors), errors, timings: timings() };
  }
  const json = new TextEncoder().encode(JSON.stringify(operation));
  return movable({ ok: true, value: { body: ownBuffer(json), mediaType: 'application/json' }, timings: timings() });
}
