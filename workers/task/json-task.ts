// The shape every accelerator task shares: a JSON request body parsed and
// validated here (never on the main thread), a handler that does the work,
// and the `data` member of the envelope serialised here as bytes that the
// main thread splices into the envelope without parsing them again (files
// in it as Base64Answer, written as base64 straight from their bytes:
// json-answer.ts).
import { performance } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import type * as v from 'valibot';
import type { AccelFailureCode, AccelValue, FieldError, Outcome, Task, TaskInput, TaskValue } from '../protocol.js';
import '../seams/decoder-budget.js';
import { openDecodedBudget, type DecodedBudget } from '../untrusted/decoded-bytes.js';
import { forgetDecoded } from './base64.js';
import { serializeAnswer } from './json-answer.js';
import { readJsonRequest } from './json-request.js';
import { movable, ownBuffer } from './transfer.js';

/** What a handler returns: the envelope's `data`, and whether it came from a cache. */
export interface JsonResult {
  readonly data: unknown;
  readonly cached?: boolean;
  /**
   * What `data` is, when it is not the envelope's `data` (application/json):
   * e.g. a request a worker validated for the main thread to carry out.
   */
  readonly mediaType?: string;
}

/**
 * An expected failure a handler throws: a content problem (`invalid-font-data`,
 * ...) or a 422 about a field (`invalid`, with errors). Anything else thrown
 * is a bug and becomes 500 `internal`.
 */
export class TaskFailure extends Error {
  constructor(
    readonly code: AccelFailureCode | 'invalid',
    detail: string,
    readonly errors: readonly FieldError[] = [],
    /** What a library said about it: for the server's log, never the response. */
    override readonly cause?: string,
  ) {
    super(detail);
    this.name = 'TaskFailure';
  }

  /**
   * A content problem (`invalid-pdf-data`, ...) of one member of the request:
   * its errors[] names the member, as every 422 of both APIs does.
   */
  static content(code: AccelFailureCode, field: string, errorCode: string, message: string, cause?: string): TaskFailure {
    return new TaskFailure(code, `${field} ${message}`, [{ field, code: errorCode, message }], cause);
  }

  /** A 422 about one field of the request. */
  static field(field: string, code: string, message: string): TaskFailure {
    return new TaskFailure('invalid', `${field}: ${message}`, [{ field, code, message }]);
  }
}

export interface JsonTaskOptions {
  /**
   * Keys whose values are files in base64 (font_data, image_data, pdf_data,
   * pdf, pdf_a, pdf_b, ...), at any depth: read from the raw body
   * (binary-fields.ts) and decoded once, into a DecodedBase64 rather than a
   * string, so the schema declares each with base64Member() and the
   * handler reads it with decodeBase64.
   */
  readonly binaryFields?: readonly string[];
}

export function jsonTask<Schema extends v.GenericSchema, Options>(
  schema: Schema,
  handler: (request: v.InferOutput<Schema>, options: Options) => JsonResult | Promise<JsonResult>,
  taskOptions: JsonTaskOptions = {},
): Task<Options, AccelValue> {
  return requestTask(schema, taskOptions, async (request, options): Promise<AccelValue> => {
    const result = await handler(request, options);
    return { body: ownBuffer(serializeAnswer(result.data)), mediaType: result.mediaType ?? 'application/json', meta: { workerId: threadId, cached: result.cached === true } };
  });
}

/** A file a task answers with as it is: a PDF, or a ZIP of several. */
export interface BinaryResult {
  readonly bytes: Uint8Array;
  readonly mediaType: 'application/pdf' | 'application/zip';
  /** Response headers that say something about the result (e.g. `X-Redactions`); the route writes them. */
  readonly headers?: readonly (readonly [string, string])[];
}

/** The same start as jsonTask (parse, validate, expected failures), for tasks whose answer is a file. */
export function binaryTask<Schema extends v.GenericSchema, Options>(
  schema: Schema,
  handler: (request: v.InferOutput<Schema>, options: Options) => BinaryResult | Promise<BinaryResult>,
  taskOptions: JsonTaskOptions = {},
): Task<Options> {
  return requestTask(schema, taskOptions, async (request, options) => {
    const result = await handler(request, options);
    return { body: ownBuffer(result.bytes), mediaType: result.mediaType, ...(result.headers === undefined ? {} : { headers: result.headers }) };
  });
}

/** Parses and validates the JSON body in the worker, runs `work`, and turns a TaskFailure into a returned failure. */
function requestTask<Schema extends v.GenericSchema, Options, Value extends TaskValue>(
  schema: Schema,
  taskOptions: JsonTaskOptions,
  work: (request: v.InferOutput<Schema>, options: Options) => Promise<Value>,
): Task<Options, Value> {
  // Files come to the handler decoded, as DecodedBase64 (JsonTaskOptions.binaryFields).
  const readOptions = { ...taskOptions, binaryAs: 'bytes' } as const;
  return async (input: TaskInput<Options>): Promise<Outcome<Value>> => {
    const started = performance.now();
    const timings = () => ({ taskMs: performance.now() - started });
    const read = readJsonRequest(input.body, input.length, schema, readOptions);
    if (!read.ok) return { ok: false, code: read.code, detail: read.detail, ...(read.errors === undefined ? {} : { errors: read.errors }), timings: timings() };
    let value: Value;
    const budget = openDecodedBudget();
    try {
      value = await work(read.value, input.options);
      // Whatever the libraries made of a refused decode (an image skipped, a page read in part), the answer is incomplete.
      if (budget.exceeded) return decodedBytesFailure(budget, taskOptions, timings());
    } catch (error) {
      if (budget.exceeded) return decodedBytesFailure(budget, taskOptions, timings());
      if (!(error instanceof TaskFailure)) throw error;
      return { ok: false, code: error.code, detail: error.message, errors: error.errors, ...(error.cause === undefined ? {} : { cause: error.cause }), timings: timings() };
    } finally {
      forgetDecoded();
    }
    return movable({ ok: true, value, timings: timings() });
  };
}

/**
 * 422 pdf-limits-exceeded (untrusted/decoded-bytes.ts): the request's PDFs
 * decode to more than PLATEN_MAX_DECODED_BYTES. errors[] names the file
 * member: the one whose bytes went past the cap when the decoder knew it
 * (qpdf's routes count each file themselves: `documents[2].pdf`), else the
 * first file member.
 */
function decodedBytesFailure(budget: DecodedBudget, taskOptions: JsonTaskOptions, timings: { taskMs: number }): Outcome<never> {
  const field = budget.source ?? taskOptions.binaryFields?.[0] ?? '(body)';
  const message = budget.detail;
  return { ok: false, code: 'pdf-limits-exceeded', detail: `${field} ${message}`, errors: [{ field, code: 'TOO_LARGE', message }], timings };
}
