// The render API's `extract-text` capability (POST /api/v1/extract-text,
// core): the text of the selected pages in reading order, as plain text per
// page or also as blocks with their boxes. Unlike the accelerator's
// extract-text (spans with fonts and colours), nothing here needs pdf.js's
// operator list, so it is never built: text runs alone cost about half
// (workers/read/types.ts, TextOptions).
import * as v from 'valibot';
import type { ReadOptions } from '../protocol.js';
import { jsonTask, TaskFailure, type JsonResult } from '../task/json-task.js';
import { decodePdfField } from '../task/pdf-field.js';
import { selectPages } from '../task/page-selection.js';
import { layoutPage, pageText, type TextBlock } from './layout/page-layout.js';
import { openReader } from './reader.js';
import { WorkBudget } from './request.js';
import { base64Member } from '../task/decoded-member.js';

const ExtractTextRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'))),
  pages: v.optional(v.pipe(v.string(), v.minLength(1, 'must select at least one page, e.g. "1-3,7"'), v.maxLength(10_000, 'must be at most 10000 characters'))),
  layout: v.optional(v.picklist(['plain', 'blocks'] as const), 'plain'),
});

type ExtractTextRequest = v.InferOutput<typeof ExtractTextRequest>;

/** render.openapi.yaml, TextBlockResult. */
interface BlockResult {
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly font_size: number;
}

const FIELDS = { data: 'pdf', password: 'password' };

export const extractTextCapability = jsonTask(ExtractTextRequest, async (request: ExtractTextRequest, options: ReadOptions): Promise<JsonResult> => {
  const document = await openReader(decodePdfField(request.pdf, 'pdf', 2 ** 31), request.password, FIELDS);
  try {
    const all = request.pages === undefined;
    const selection = all ? [] : selectPages(request.pages as string, document.pageCount, 'pages', options.maxPages);
    if (all && document.pageCount > options.maxPages) {
      throw TaskFailure.field('pages', 'TOO_LARGE', `the document has ${document.pageCount} pages; one request reads at most ${options.maxPages} (PLATEN_MAX_PAGES): send pages, e.g. "1-${options.maxPages}", and read the rest in further requests`);
    }
    const numbers = all ? Array.from({ length: document.pageCount }, (_, i) => i + 1) : selection.map((index) => index + 1);
    const budget = new WorkBudget(options.workBudget, 'pdf');
    const pages = [];
    for (const number of numbers) {
      const page = await document.page(number);
      try {
        const items = await page.text({ styles: false });
        budget.spend(items.length, number);
        const blocks = layoutPage(items, undefined, page.size.width);
        pages.push({ page_number: number, text: pageText(blocks), ...(request.layout === 'blocks' ? { blocks: blocks.map(blockResult) } : {}) });
      } finally {
        page.close();
      }
    }
    return { data: { page_count: document.pageCount, notice: document.notice, pages } };
  } finally {
    await document.close();
  }
}, { binaryFields: ['pdf'] });

function blockResult(block: TextBlock): BlockResult {
  return { text: block.text, x: round(block.x), y: round(block.y), width: round(block.width), height: round(block.height), font_size: round(block.fontSize) };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
