// The `compare` task (POST /v1/compare, pro): two PDFs in, the changes from
// the first to the second out (compare.ts decides what a change is).
//
// Decisions where the spec is silent (README "Comparison", accel contract):
// - `mode` defaults to `semantic` (the spec's own example), `ignore_formatting`
//   to false: a word set in another font, size or colour is a `format` change
//   unless the client asks to ignore it.
// - `page_range` [first, last] (1-based, inclusive) applies to both documents;
//   a `last` past a document's end is clamped, a `first` past its end selects
//   none of its pages (the other document's pages then count as added or
//   removed); `first < 1`, `first > last`, or a range past the end of both
//   documents is 422.
// - Each document may be encrypted: `password_a`, `password_b`.
import * as v from 'valibot';
import type { ReadOptions } from '../protocol.js';
import { decodePdf, PageRange } from '../read/request.js';
import { jsonTask, TaskFailure, type JsonResult } from '../task/json-task.js';
import { compareDocuments } from './compare.js';
import { base64Member } from '../task/decoded-member.js';

const CompareRequest = v.strictObject({
  pdf_a: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  pdf_b: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password_a: v.optional(v.string()),
  password_b: v.optional(v.string()),
  options: v.optional(
    v.strictObject({
      mode: v.optional(v.picklist(['text', 'semantic'] as const, 'must be text or semantic'), 'semantic'),
      ignore_formatting: v.optional(v.boolean(), false),
      page_range: v.optional(v.nullable(PageRange), null),
    }),
    {},
  ),
});

type CompareRequest = v.InferOutput<typeof CompareRequest>;

const RANGE_FIELD = 'options.page_range';

export const compare = jsonTask(
  CompareRequest,
  async (request: CompareRequest, options: ReadOptions): Promise<JsonResult> => {
    const range = request.options.page_range;
    if (range !== null) {
      const [first, last] = range;
      if (first < 1) throw TaskFailure.field(RANGE_FIELD, 'OUT_OF_RANGE', `the first page is ${first}; pages are numbered from 1`);
      if (first > last) throw TaskFailure.field(RANGE_FIELD, 'INVALID_VALUE', `the first page (${first}) is after the last (${last})`);
    }
    const select = range === null ? undefined : (pageCount: number) => pagesIn(range, pageCount);
    const comparison = await compareDocuments(
      { bytes: decodePdf(request.pdf_a, 'pdf_a'), password: request.password_a, fields: { data: 'pdf_a', password: 'password_a' } },
      { bytes: decodePdf(request.pdf_b, 'pdf_b'), password: request.password_b, fields: { data: 'pdf_b', password: 'password_b' } },
      {
        mode: request.options.mode,
        ignoreFormatting: request.options.ignore_formatting,
        select,
        selectionField: RANGE_FIELD,
        maxPages: options.maxPages,
        workBudget: options.workBudget,
      },
    );
    return { data: comparison };
  },
  { binaryFields: ['pdf_a', 'pdf_b'] },
);

function pagesIn([first, last]: readonly [number, number], pageCount: number): number[] {
  const end = Math.min(last, pageCount);
  return first > end ? [] : Array.from({ length: end - first + 1 }, (_, i) => first + i);
}
