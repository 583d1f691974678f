// The `render` task: JSON RenderRequest bytes in, PDF bytes out.
import { performance } from 'node:perf_hooks';
import type { Outcome, RenderOptions, TaskInput } from '../protocol.js';
import { forgetDecoded } from '../task/base64.js';
import { readJsonRequest } from '../task/json-request.js';
import { movable, ownBuffer } from '../task/transfer.js';
import { summarize } from '../task/validation.js';
import { RenderError } from './errors.js';
import { checkWholeRequest, renderDocument } from './engine.js';
import { BINARY_FIELDS, RenderRequest, normalizeAliases } from './schema.js';

/** Used when the task is called without options (tests, benchmarks); the server always sends its own. */
const DEFAULT_OPTIONS: RenderOptions = { maxPages: 2000 };

type Checked = { ok: true; request: RenderRequest } | { ok: false; outcome: Outcome };

/** Parses and validates a RenderRequest body; a failure is the Outcome to return. */
function check(input: TaskInput, started: number, binaryFields?: readonly string[]): Checked {
  const read = readJsonRequest(input.body, input.length, RenderRequest, { ...(binaryFields === undefined ? {} : { binaryFields }), prepare: normalizeAliases });
  if (read.ok) return { ok: true, request: read.value };
  return { ok: false, outcome: { ok: false, code: read.code, detail: read.detail, ...(read.errors === undefined ? {} : { errors: read.errors }), timings: { taskMs: performance.now() - started } } };
}

/**
 * The `validate` task: what POST /jobs runs before accepting a job, so that
 * an invalid request is a 422 at once rather than a failed job later.
 * Problems found only while laying out (a missing glyph, the page budget)
 * still fail the job. The body comes back (transferred again, not copied):
 * the main thread stores it as the job's request.
 */
export async function validate(input: TaskInput): Promise<Outcome> {
  const started = performance.now();
  const checked = check(input, started);
  if (!checked.ok) return checked.outcome;
  // What the whole request must satisfy (a tagged file's title and language, unique attachment names), known before any layout.
  try {
    checkWholeRequest(checked.request);
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return { ok: false, code: 'invalid', detail: summarize(error.errors), errors: error.errors, timings: { taskMs: performance.now() - started } };
  }
  return movable({ ok: true, value: { body: input.body, mediaType: 'application/json' }, timings: { taskMs: performance.now() - started } });
}

export async function render(input: TaskInput<Partial<RenderOptions>>): Promise<Outcome> {
  const started = performance.now();
  const timings = () => ({ taskMs: performance.now() - started });
  // Only here, where the files are decoded: validate and session operations would decode them for nothing.
  const checked = check(input, started, BINARY_FIELDS);
  if (!checked.ok) {
    forgetDecoded();
    return checked.outcome;
  }

  const progress = input.options.progress === undefined ? undefined : new Int32Array(input.options.progress);
  const onProgress = progress === undefined ? undefined : (percent: number) => Atomics.store(progress, 0, percent);
  let pdf: Uint8Array;
  try {
    pdf = await renderDocument(checked.request, { ...DEFAULT_OPTIONS, ...input.options, onProgress });
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return { ok: false, code: 'invalid', detail: summarize(error.errors), errors: error.errors, ...(error.cause === undefined ? {} : { cause: error.cause }), timings: timings() };
  } finally {
    forgetDecoded();
  }
  return movable({ ok: true, value: { body: ownBuffer(pdf), mediaType: 'application/pdf' }, timings: timings() });
}
