// The `render` task: JSON RenderRequest bytes in, PDF bytes out.
import { performance } from 'node:perf_hooks';
import type { Outcome, RenderOptions, SubmissionState, TaskInput, ValidateOptions, ValidationVerdict } from '../protocol.js';
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
function check(input: TaskInput<unknown>, started: number, binaryFields?: readonly string[]): Checked {
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
export async function validate(input: TaskInput<ValidateOptions>): Promise<Outcome> {
  const started = performance.now();
  if (input.options.lengths !== undefined) return validateEach(input, async (one) => validationFailure(one, started) ?? VALID);
  const failure = validationFailure(input, started);
  if (failure !== undefined) return failure;
  return movable({ ok: true, value: { body: input.body, mediaType: 'application/json' }, timings: { taskMs: performance.now() - started } });
}

/** A passing verdict, for validateEach. */
const VALID: Outcome = Object.freeze({ ok: true, value: { body: new ArrayBuffer(0), mediaType: 'application/json' }, timings: { taskMs: 0 } });

/**
 * A batch (ValidateOptions.lengths): each request checked by `one` in its
 * own buffer, as a lone validate task would check it, and the verdicts
 * answered as JSON, in order.
 */
export async function validateEach(input: TaskInput<ValidateOptions>, one: (request: TaskInput<ValidateOptions>) => Promise<Outcome>): Promise<Outcome> {
  const started = performance.now();
  const verdicts: ValidationVerdict[] = [];
  let offset = 0;
  for (const length of input.options.lengths ?? []) {
    const outcome = await one({ body: input.body.slice(offset, offset + length), length, options: {} });
    offset += length;
    verdicts.push(outcome.ok ? null : { code: outcome.code, detail: outcome.detail, ...(outcome.errors === undefined ? {} : { errors: outcome.errors }), ...(outcome.cause === undefined ? {} : { cause: outcome.cause }) });
  }
  const json = new TextEncoder().encode(JSON.stringify(verdicts));
  return { ok: true, value: { body: json.buffer as ArrayBuffer, mediaType: 'application/json' }, timings: { taskMs: performance.now() - started } };
}

/** What `validate` finds wrong with the request, as its Outcome; undefined when it passes. */
function validationFailure(input: TaskInput<unknown>, started: number, checked: Checked = check(input, started)): Outcome | undefined {
  if (!checked.ok) return checked.outcome;
  // What the whole request must satisfy (a tagged file's title and language, unique attachment names), known before any layout.
  try {
    checkWholeRequest(checked.request);
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return { ok: false, code: 'invalid', detail: summarize(error.errors), errors: error.errors, timings: { taskMs: performance.now() - started } };
  }
  return undefined;
}

/** Where a submitted job's SubmissionState is in its `progress` Int32s, and the two states set here and by the main thread. */
const SUBMISSION_SLOT = 1;
const UNDECIDED: SubmissionState = 0;
const SIGNALLED_VALID: SubmissionState = 1;

/**
 * RenderOptions.signalValid: says that the request passed `validate`'s
 * checks, so the main thread may answer the submission 201. False when the
 * main thread withdrew the submission first (its client left): nothing is
 * to be rendered then.
 */
export function signalValid(progress: Int32Array): boolean {
  if (Atomics.compareExchange(progress, SUBMISSION_SLOT, UNDECIDED, SIGNALLED_VALID) !== UNDECIDED) return false;
  Atomics.notify(progress, SUBMISSION_SLOT);
  return true;
}

export async function render(input: TaskInput<Partial<RenderOptions>>): Promise<Outcome> {
  const started = performance.now();
  const timings = () => ({ taskMs: performance.now() - started });
  // Only here, where the files are decoded: validate and session operations would decode them for nothing.
  const checked = check(input, started, BINARY_FIELDS);
  const progress = input.options.progress === undefined ? undefined : new Int32Array(input.options.progress);
  if (input.options.signalValid === true && progress !== undefined) {
    // The submission's answer waits for validate's verdict, not the render's:
    // a request that fails only here (a binary field that does not decode)
    // passes validate, so it is a job that fails, as when validated apart.
    const failure = validationFailure(input, started, checked.ok ? checked : check(input, started));
    if (failure !== undefined || !signalValid(progress)) {
      forgetDecoded();
      // Withdrawn: validate's verdict, which the main thread does not read (it answers the submission as its client's leaving, and keeps nothing).
      return failure ?? VALID;
    }
  }
  if (!checked.ok) {
    forgetDecoded();
    return checked.outcome;
  }

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
