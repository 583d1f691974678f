// The `render` task: JSON RenderRequest bytes in, PDF bytes out.
import { performance } from 'node:perf_hooks';
import * as v from 'valibot';
import type { Outcome, RenderOptions, TaskInput } from '../protocol.js';
import { NOT_AN_OBJECT, isJsonObject, parseJson } from '../lib/json.js';
import { movable, ownBuffer } from '../lib/transfer.js';
import { summarize, toFieldErrors } from '../lib/validation.js';
import { RenderError } from './common.js';
import { renderDocument } from './engine.js';
import { RenderRequest, normalizeAliases } from './schema.js';

/** Used when the task is called without options (tests, benchmarks); the server always sends its own. */
const DEFAULT_OPTIONS: RenderOptions = { maxPages: 2000 };

export async function render(input: TaskInput<Partial<RenderOptions>>): Promise<Outcome> {
  const started = performance.now();
  const timings = () => ({ taskMs: performance.now() - started });

  const parsed = parseJson(input.body, input.length);
  if (!parsed.ok) return { ok: false, code: 'malformed', detail: parsed.detail, timings: timings() };
  if (!isJsonObject(parsed.value)) {
    return { ok: false, code: 'invalid', detail: NOT_AN_OBJECT.message, errors: [NOT_AN_OBJECT], timings: timings() };
  }
  const validated = v.safeParse(RenderRequest, normalizeAliases(parsed.value));
  if (!validated.success) {
    const errors = toFieldErrors(validated.issues);
    return { ok: false, code: 'invalid', detail: summarize(errors), errors, timings: timings() };
  }

  let pdf: Uint8Array;
  try {
    pdf = await renderDocument(validated.output, { ...DEFAULT_OPTIONS, ...input.options });
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return { ok: false, code: 'invalid', detail: summarize(error.errors), errors: error.errors, timings: timings() };
  }
  return movable({ ok: true, value: { body: ownBuffer(pdf), mediaType: 'application/pdf' }, timings: timings() });
}
