// What every reading task's request shares: the PDF as base64 (decoded here,
// in the worker), an optional password, a page range, and the bounds on the
// work one request may ask for (page limit, work budget).
import * as v from 'valibot';
import type { ReadOptions } from '../protocol.js';
import { decodePdfField } from '../task/pdf-field.js';
import { TaskFailure } from '../task/json-task.js';
import type { Base64Value } from '../task/decoded-member.js';

/**
 * [first, last], 1-based, inclusive; `last` past the end is clamped. Strict:
 * a third item is a 422 (TOO_LONG), not dropped, since [1, 5, 10] may mean
 * pages 1, 5 and 10 and reading 1-5 would answer a different question.
 */
export const PageRange = v.pipe(
  v.strictTuple([v.pipe(v.number(), v.integer()), v.pipe(v.number(), v.integer())], 'must be [first, last]: two whole page numbers'),
  v.readonly(),
);

export const LanguageHint = v.pipe(v.string(), v.regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'must be a BCP 47 language tag, e.g. "ja" or "th-TH"'));

/** The PDF member decoded and pre-checked (task/pdf-field.ts), failures naming `field`. */
export function decodePdf(base64: Base64Value, field: string): Uint8Array {
  return decodePdfField(base64, field);
}

export interface Pages {
  readonly first: number;
  readonly last: number;
}

/** The pages to read, or a 422 on `field` (first < 1, first > last, first past the end, or more than the page limit). */
export function selectPages(range: readonly [number, number] | undefined, pageCount: number, options: ReadOptions, field: string): Pages {
  const [first, requestedLast] = range ?? [1, pageCount];
  if (first < 1) throw TaskFailure.field(field, 'OUT_OF_RANGE', `the first page is ${first}; pages are numbered from 1`);
  if (first > requestedLast) throw TaskFailure.field(field, 'INVALID_VALUE', `the first page (${first}) is after the last (${requestedLast})`);
  if (first > pageCount) throw TaskFailure.field(field, 'OUT_OF_RANGE', `the first page is ${first} but the document has ${pageCount} page${pageCount === 1 ? '' : 's'}`);
  const last = Math.min(requestedLast, pageCount);
  if (last - first + 1 > options.maxPages) {
    throw TaskFailure.field(
      field,
      'TOO_LARGE',
      `${last - first + 1} pages selected; one request reads at most ${options.maxPages} (PLATEN_MAX_PAGES): send a page_range and read the rest in further requests`,
    );
  }
  return { first, last };
}

/** Counts the work done so far (drawing operators and text runs read) against the request's budget. */
export class WorkBudget {
  private spent = 0;
  constructor(
    private readonly limit: number,
    private readonly field: string,
  ) {}

  spend(units: number, page: number): void {
    this.spent += units;
    if (this.spent > this.limit) {
      throw TaskFailure.field(
        this.field,
        'TOO_LARGE',
        `reading stopped at page ${page}: the pages so far hold more than ${this.limit} drawing operators and text runs, this server's work budget per request (PLATEN_READ_WORK_BUDGET); send a smaller page_range`,
      );
    }
  }
}
