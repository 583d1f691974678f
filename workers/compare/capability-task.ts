// The render API's `compare` capability (POST /api/v1/compare, pro): the
// same comparison as the accelerator's /v1/compare (compare.ts), with the
// render API's request shape: `pdf_a`/`pdf_b` (and `password_a`/
// `password_b`), `mode`, `ignore_formatting`, and `pages` in the shared
// selection syntax ("1-3,7", "4-"), applied to both documents. A page of
// the selection that one document lacks is simply not in that document's
// side (so the other's counts as added or removed); a selection that picks
// no page of either document is 422 on `pages`.
import * as v from 'valibot';
import type { ReadOptions } from '../protocol.js';
import { isRanges, invalidSelection, parsePageSelection, type PageRange } from '../task/page-selection.js';
import { decodePdfField } from '../task/pdf-field.js';
import { jsonTask, type JsonResult } from '../task/json-task.js';
import { compareDocuments } from './compare.js';
import { base64Member } from '../task/decoded-member.js';

const Password = v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'));

const CompareRequest = v.strictObject({
  pdf_a: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  pdf_b: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password_a: v.optional(Password),
  password_b: v.optional(Password),
  mode: v.optional(v.picklist(['text', 'semantic'] as const, 'must be text or semantic'), 'semantic'),
  ignore_formatting: v.optional(v.boolean(), false),
  pages: v.optional(v.pipe(v.string(), v.minLength(1, 'must select at least one page, e.g. "1-3,7"'), v.maxLength(10_000, 'must be at most 10000 characters'))),
});

type CompareRequest = v.InferOutput<typeof CompareRequest>;

export const compareCapability = jsonTask(
  CompareRequest,
  async (request: CompareRequest, options: ReadOptions): Promise<JsonResult> => {
    let select: ((pageCount: number) => number[]) | undefined;
    if (request.pages !== undefined) {
      const ranges = parsePageSelection(request.pages, 'pages');
      if (!isRanges(ranges)) throw invalidSelection(ranges);
      select = (pageCount) => pagesIn(ranges, pageCount, options.maxPages);
    }
    const comparison = await compareDocuments(
      { bytes: decodePdfField(request.pdf_a, 'pdf_a', 2 ** 31), password: request.password_a, fields: { data: 'pdf_a', password: 'password_a' } },
      { bytes: decodePdfField(request.pdf_b, 'pdf_b', 2 ** 31), password: request.password_b, fields: { data: 'pdf_b', password: 'password_b' } },
      {
        mode: request.mode,
        ignoreFormatting: request.ignore_formatting,
        select,
        selectionField: 'pages',
        maxPages: options.maxPages,
        workBudget: options.workBudget,
      },
    );
    return { data: comparison };
  },
  { binaryFields: ['pdf_a', 'pdf_b'] },
);

/** The selection's 1-based pages that this document has, in order, each once, at most `maxPages + 1` (compare.ts refuses more). */
function pagesIn(ranges: readonly PageRange[], pageCount: number, maxPages: number): number[] {
  const seen = new Set<number>();
  const pages: number[] = [];
  for (const range of ranges) {
    const last = Math.min(range.last ?? pageCount, pageCount);
    for (let page = range.first; page <= last && pages.length <= maxPages; page++) {
      if (!seen.has(page)) {
        seen.add(page);
        pages.push(page);
      }
    }
  }
  return pages;
}
