// Turns valibot issues into the problem document's errors[]: one entry per
// offending field, with a path a person can find in their request
// (`operations[3].width`) and a stable machine-readable code.
import * as v from 'valibot';
import type { FieldError } from '../protocol.js';

/** valibot issue types mapped to our stable codes; anything else is INVALID_VALUE. */
const CODES: Record<string, string> = {
  picklist: 'INVALID_ENUM',
  variant: 'INVALID_ENUM',
  literal: 'INVALID_ENUM',
  string: 'INVALID_TYPE',
  number: 'INVALID_TYPE',
  boolean: 'INVALID_TYPE',
  object: 'INVALID_TYPE',
  // valibot names each object schema's type issue after the schema: a number where
  // output, metadata or options go was INVALID_VALUE, a number elsewhere INVALID_TYPE.
  strict_object: 'INVALID_TYPE',
  loose_object: 'INVALID_TYPE',
  object_with_rest: 'INVALID_TYPE',
  record: 'INVALID_TYPE',
  tuple: 'INVALID_TYPE',
  strict_tuple: 'INVALID_TYPE',
  array: 'INVALID_TYPE',
  integer: 'INVALID_TYPE',
  finite: 'INVALID_TYPE',
  min_value: 'OUT_OF_RANGE',
  max_value: 'OUT_OF_RANGE',
  gt_value: 'OUT_OF_RANGE',
  min_length: 'TOO_SHORT',
  max_length: 'TOO_LONG',
  regex: 'INVALID_FORMAT',
  hex_color: 'INVALID_FORMAT',
};

/**
 * Characters of one key in a field path: an unknown key is the client's own
 * text, and a 1 MB key came back whole, twice (in `detail` and `errors[]`).
 */
export const MAX_KEY_LENGTH = 64;

export function fieldPath(path: readonly v.IssuePathItem[] | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    if (item.type === 'array') out += `[${String(item.key)}]`;
    else out += out === '' ? boundedKey(item.key) : `.${boundedKey(item.key)}`;
  }
  return out === '' ? '(body)' : out;
}

function boundedKey(key: unknown): string {
  const text = String(key);
  return text.length > MAX_KEY_LENGTH ? `${text.slice(0, MAX_KEY_LENGTH - 3)}...` : text;
}

/**
 * At most this many entries: a 1 MB body of 400,000 bad items produced a
 * 36 MB problem document that the main thread then had to clone and send.
 */
export const MAX_FIELD_ERRORS = 100;

/**
 * valibot's default messages end with "but received <the input>", which
 * would echo a client's (possibly huge, possibly secret) value back; ours
 * keep what was expected only, and are bounded.
 */
function ownMessage(message: string): string {
  const trimmed = message.replace(/ but received [\s\S]*$/, '');
  return trimmed.length > 300 ? `${trimmed.slice(0, 297)}...` : trimmed;
}

export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues.slice(0, MAX_FIELD_ERRORS)) {
    const field = fieldPath(issue.path);
    // valibot reports a missing key as an issue of the object schema with the
    // key's schema expected and `undefined` received; an unknown key of a
    // strict object expects `never`.
    if (issue.type === 'strict_tuple' && issue.expected === 'never') {
      // An item past a strict tuple's last one: valibot puts the path on the
      // extra item and expects `never`, which would read as an unknown field.
      errors.push(tooManyItems(issue));
    } else if (issue.expected === 'never') {
      errors.push({ field, code: 'UNKNOWN_FIELD', message: 'Unknown field; check its spelling against the contract.' });
    } else if (issue.kind === 'schema' && issue.received === 'undefined') {
      errors.push({ field, code: 'REQUIRED', message: 'This field is required.' });
    } else {
      errors.push({ field, code: CODES[issue.type] ?? 'INVALID_VALUE', message: ownMessage(issue.message) });
    }
  }
  return errors;
}

/** A strict tuple given more items than it has: the tuple's field, TOO_LONG, its own message kept. */
function tooManyItems(issue: v.BaseIssue<unknown>): FieldError {
  const path = issue.path ?? [];
  const extra = path.at(-1);
  const taken = typeof extra?.key === 'number' ? extra.key : undefined;
  const given = Array.isArray(extra?.input) ? extra.input.length : undefined;
  const count = taken === undefined || given === undefined ? 'too many items' : `${given} items where at most ${taken} are taken`;
  // valibot's own message here is "Invalid type: Expected never ...", which says nothing to a client.
  const message = issue.message.startsWith('Invalid type:') ? `Has ${count}.` : `${ownMessage(issue.message)} (this one has ${count})`;
  return { field: fieldPath(path.slice(0, -1)), code: 'TOO_LONG', message };
}

/** A one-line summary for `detail`, naming the first field. */
export function summarize(errors: readonly FieldError[]): string {
  const first = errors[0];
  if (first === undefined) return 'The request is invalid.';
  const more =
    errors.length >= MAX_FIELD_ERRORS
      ? ` (and more; errors lists the first ${MAX_FIELD_ERRORS})`
      : errors.length > 1
        ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''}; see errors)`
        : '';
  return `${first.field}: ${first.message}${more}`;
}
