// The start every JSON task shares (render, validate, session operations,
// the accelerator's tasks): the body parsed, checked to be an object,
// optionally reshaped, validated with valibot (an array is never an object,
// object-shapes.ts), and its issues turned into field errors. Written once; it was three copies (issue 9).
//
// `binaryFields` names the keys whose values are large base64 strings
// (font_data, image_data, pdf_data, an operation's data, ...): they are read
// from the raw bytes rather than through the body's string (binary-fields.ts,
// issue 14), with the same result and the same errors; `binaryAs` says
// whether the task gets them as strings or already decoded (DecodedBase64).
import * as v from 'valibot';
import type { FieldError } from '../protocol.js';
import { parseWithBinaryFields, type BinaryAs } from './binary-fields.js';
import { NOT_AN_OBJECT, isJsonObject, parseJson } from './json.js';
import { objectsRefuseArrays } from './object-shapes.js';
import { summarize, toFieldErrors } from './validation.js';

export interface JsonRequestOptions {
  /** Keys whose string values may be base64 files, at any depth. */
  readonly binaryFields?: readonly string[];
  /**
   * What those values become when read from the raw bytes: 'text' (the
   * default; the string, decoded once for decodeBase64) or 'bytes' (a
   * DecodedBase64 and no string at all: the schema declares each such key
   * with base64Member()).
   */
  readonly binaryAs?: BinaryAs;
  /** An empty body is this value instead of malformed JSON (a session's POST .../pages may have no fields). */
  readonly emptyBody?: Record<string, unknown>;
  /**
   * Runs on the parsed object before validation: aliases resolved, fields
   * wrapped. What `refuse()` returns refuses the request.
   */
  readonly prepare?: (body: Record<string, unknown>) => unknown | FieldError;
  /** Rewrites the paths of validation errors (a session reports paths in the client's payload, not in a wrapping request). */
  readonly fieldPath?: (path: string) => string;
}

export type JsonRequest<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: 'malformed' | 'invalid'; readonly detail: string; readonly errors?: readonly FieldError[] };

export function readJsonRequest<Schema extends v.GenericSchema>(
  body: ArrayBuffer,
  length: number,
  schema: Schema,
  options: JsonRequestOptions = {},
): JsonRequest<v.InferOutput<Schema>> {
  let parsed: unknown;
  if (length === 0 && options.emptyBody !== undefined) {
    parsed = { ...options.emptyBody };
  } else {
    const fast = options.binaryFields === undefined ? undefined : parseWithBinaryFields(new Uint8Array(body, 0, length), options.binaryFields, undefined, options.binaryAs);
    if (fast !== undefined) {
      parsed = fast.value;
    } else {
      const whole = parseJson(body, length);
      if (!whole.ok) return { ok: false, code: 'malformed', detail: whole.detail };
      parsed = whole.value;
    }
  }
  if (!isJsonObject(parsed)) return { ok: false, code: 'invalid', detail: NOT_AN_OBJECT.message, errors: [NOT_AN_OBJECT] };
  const prepared = options.prepare === undefined ? parsed : options.prepare(parsed);
  if (isRefusal(prepared)) {
    const error: FieldError = { field: prepared.field, code: prepared.code, message: prepared.message };
    return { ok: false, code: 'invalid', detail: summarize([error]), errors: [error] };
  }
  const validated = v.safeParse(objectsRefuseArrays(schema), prepared);
  if (!validated.success) {
    const rename = options.fieldPath;
    const errors = toFieldErrors(validated.issues).map((e) => (rename === undefined ? e : { ...e, field: rename(e.field) }));
    return { ok: false, code: 'invalid', detail: summarize(errors), errors };
  }
  return { ok: true, value: validated.output };
}

/** A FieldError returned by `prepare` (not a body that happens to look like one: prepare returns bodies wrapped or renamed). */
const REFUSAL = Symbol('refusal');

/** What `prepare` returns to refuse the request. */
export function refuse(error: FieldError): FieldError {
  return Object.assign({ ...error }, { [REFUSAL]: true });
}

function isRefusal(value: unknown): value is FieldError {
  return typeof value === 'object' && value !== null && REFUSAL in value;
}
