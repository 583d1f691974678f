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
  strict_object: 'UNKNOWN_FIELD',
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

export function fieldPath(path: readonly v.IssuePathItem[] | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    if (item.type === 'array') out += `[${String(item.key)}]`;
    else out += out === '' ? String(item.key) : `.${String(item.key)}`;
  }
  return out === '' ? '(body)' : out;
}

export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    const field = fieldPath(issue.path);
    let code = CODES[issue.type] ?? 'INVALID_VALUE';
    // valibot reports a missing required key as a type issue whose input is undefined.
    if (issue.kind === 'schema' && issue.input === undefined && issue.type !== 'strict_object') code = 'REQUIRED';
    if (issue.type === 'strict_object') {
      errors.push({ field, code, message: `Unknown field; check its spelling against the contract.` });
      continue;
    }
    errors.push({ field, code, message: code === 'REQUIRED' ? 'This field is required.' : issue.message });
  }
  return errors;
}

/** A one-line summary for `detail`, naming the first field. */
export function summarize(errors: readonly FieldError[]): string {
  const first = errors[0];
  if (first === undefined) return 'The request is invalid.';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''}; see errors)` : '';
  return `${first.field}: ${first.message}${more}`;
}
