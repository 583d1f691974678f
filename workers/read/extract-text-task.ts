// The `extract-text` task (POST /v1/extract-text): every run of text on the
// selected pages with its box, font, size, fill colour, bold/italic,
// rotation, visibility and place in reading order, at the granularity asked
// (runs as drawn, words, or characters).
//
// Styles need pdf.js's operator list for each page (the real font name,
// the fill colour, render mode 3); the spans report them, so this task
// always reads it (measured in the README's benchmark section).
import * as v from 'valibot';
import type { ReadOptions } from '../protocol.js';
import { jsonTask, type JsonResult } from '../task/json-task.js';
import { layoutPage } from './layout/page-layout.js';
import { openReader } from './reader.js';
import { decodePdf, LanguageHint, PageRange, selectPages, WorkBudget } from './request.js';
import { splitItem, type Granularity } from './split.js';
import type { ReaderDocument, TextItem } from './types.js';
import { base64Member } from '../task/decoded-member.js';

const ExtractTextRequest = v.strictObject({
  pdf_data: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.string()),
  options: v.optional(
    v.strictObject({
      page_range: v.optional(PageRange),
      granularity: v.optional(v.picklist(['span', 'word', 'char'] as const), 'span'),
      language_hint: v.optional(LanguageHint),
    }),
    {},
  ),
});

type ExtractTextRequest = v.InferOutput<typeof ExtractTextRequest>;

/** accel.openapi.yaml, TextSpan. */
export interface TextSpan {
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly font: string;
  readonly font_size: number;
  readonly color: string;
  readonly bold: boolean;
  readonly italic: boolean;
  readonly rotation: number;
  readonly invisible: boolean;
  readonly reading_order: number;
}

const FIELDS = { data: 'pdf_data', password: 'password' };

export const extractText = jsonTask(
  ExtractTextRequest,
  async (request: ExtractTextRequest, options: ReadOptions): Promise<JsonResult> => {
    const document = await openReader(decodePdf(request.pdf_data, 'pdf_data'), request.password, FIELDS);
    try {
      const { first, last } = selectPages(request.options.page_range, document.pageCount, options, 'options.page_range');
      return {
        data: {
          page_count: document.pageCount,
          notice: document.notice,
          pages: await readPages(document, first, last, request.options.granularity, request.options.language_hint, new WorkBudget(options.workBudget, 'pdf_data')),
        },
      };
    } finally {
      await document.close();
    }
  },
  { binaryFields: ['pdf_data'] },
);

async function readPages(document: ReaderDocument, first: number, last: number, granularity: Granularity, language: string | undefined, budget: WorkBudget) {
  const pages = [];
  for (let number = first; number <= last; number++) {
    const page = await document.page(number);
    try {
      const operators = await page.operators();
      budget.spend(operators.fnArray.length, number);
      const items = await page.text({ styles: true });
      budget.spend(items.length, number);
      pages.push({ page_number: number, width: page.size.width, height: page.size.height, spans: spansOf(items, granularity, language, page.size.width) });
    } finally {
      page.close();
    }
  }
  return pages;
}

function spansOf(items: readonly TextItem[], granularity: Granularity, language: string | undefined, pageWidth: number): TextSpan[] {
  const spans: TextSpan[] = [];
  for (const block of layoutPage(items, language, pageWidth)) {
    for (const line of block.lines) {
      for (const item of line.items) {
        for (const piece of splitItem(item, granularity, language)) {
          if (piece.text.trim() === '') continue;
          spans.push({
            text: piece.text,
            x: piece.x,
            y: piece.y,
            width: piece.width,
            height: item.height,
            font: item.font,
            font_size: item.fontSize,
            color: item.color,
            bold: item.bold,
            italic: item.italic,
            rotation: item.rotation,
            invisible: item.invisible,
            reading_order: spans.length,
          });
        }
      }
    }
  }
  return spans;
}
