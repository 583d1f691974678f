// Page selections, the one syntax every operation that takes `pages` (or a
// split's `ranges`) shares: comma-separated items, each a page ("7"), a
// range ("1-3") or an open range to the end ("4-"), 1-based and inclusive,
// in the order given ("2-4,7" is pages 2, 3, 4, 7; "3,1" is 3 then 1).
// Parsing needs no document; resolving against the page count does, and
// its errors name the offending item so a person can find it.
import type { FieldError } from '../protocol.js';
import { TaskFailure } from './json-task.js';

export interface PageRange {
  /** 1-based. */
  readonly first: number;
  /** 1-based, inclusive; undefined: to the last page. */
  readonly last: number | undefined;
  /** The item as written, for error messages. */
  readonly text: string;
}

/** At most this many items in one selection: enough for any hand-written list, bounded for a hostile one. */
export const MAX_SELECTION_ITEMS = 1000;

const ITEM = /^(\d{1,7})(?:(-)(\d{1,7})?)?$/;

/** Parses "1-3,7,9-"; returns the ranges, or the field errors of every malformed item. */
export function parsePageSelection(text: string, field: string): PageRange[] | FieldError[] {
  const items = text.split(',').map((item) => item.trim());
  if (items.length > MAX_SELECTION_ITEMS) {
    return [{ field, code: 'TOO_LONG', message: `A selection has at most ${MAX_SELECTION_ITEMS} items; this one has ${items.length}.` }];
  }
  const ranges: PageRange[] = [];
  const errors: FieldError[] = [];
  for (const item of items) {
    const match = ITEM.exec(item);
    if (match === null) {
      errors.push({
        field,
        code: 'INVALID_FORMAT',
        message: item === '' ? 'An empty item in the selection (two commas, or a comma at an end).' : `"${item.slice(0, 40)}" is not a page ("7"), a range ("1-3") or an open range ("4-").`,
      });
      continue;
    }
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : match[3] === undefined ? undefined : Number(match[3]);
    if (first < 1) {
      errors.push({ field, code: 'OUT_OF_RANGE', message: `"${item}": pages are numbered from 1.` });
    } else if (last !== undefined && last < first) {
      errors.push({ field, code: 'OUT_OF_RANGE', message: `"${item}": the range ends before it starts; write it first-last, e.g. "${last}-${first}".` });
    } else {
      ranges.push({ first, last, text: item });
    }
  }
  return errors.length > 0 ? errors : ranges;
}

/** A parsed selection's failure as the task's 422. */
export function invalidSelection(errors: readonly FieldError[]): TaskFailure {
  const first = errors[0] as FieldError;
  return new TaskFailure('invalid', `${first.field}: ${first.message}`, errors);
}

/**
 * The 0-based page indices a selection picks in a document of `pageCount`
 * pages, in order. A range that reaches past the last page is an error
 * naming it (the client asked for pages that are not there), and so is a
 * selection of more than `maxPages` pages in all.
 */
export function resolvePageSelection(ranges: readonly PageRange[], pageCount: number, field: string, maxPages: number): number[] {
  const errors: FieldError[] = [];
  const pages: number[] = [];
  for (const range of ranges) {
    const last = range.last ?? pageCount;
    if (range.first > pageCount || last > pageCount) {
      errors.push({ field, code: 'OUT_OF_RANGE', message: `"${range.text}" is outside the document, which has ${pageCount} page${pageCount === 1 ? '' : 's'}.` });
      continue;
    }
    if (pages.length + (last - range.first + 1) > maxPages) {
      throw new TaskFailure('invalid', `${field}: the selection has more than ${maxPages} pages (PLATEN_MAX_PAGES).`, [
        { field, code: 'TOO_LARGE', message: `The selection has more than ${maxPages} pages (PLATEN_MAX_PAGES).` },
      ]);
    }
    for (let page = range.first; page <= last; page++) pages.push(page - 1);
  }
  if (errors.length > 0) throw invalidSelection(errors);
  return pages;
}

/** Parses and resolves in one step (the selection is already known to be well-formed text). */
export function selectPages(text: string, pageCount: number, field: string, maxPages: number): number[] {
  const ranges = parsePageSelection(text, field);
  if (!isRanges(ranges)) throw invalidSelection(ranges);
  return resolvePageSelection(ranges, pageCount, field, maxPages);
}

export function isRanges(parsed: PageRange[] | FieldError[]): parsed is PageRange[] {
  return parsed.length === 0 || 'first' in (parsed[0] as object);
}
