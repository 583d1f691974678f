// The `split` task (POST /api/v1/split, core): one PDF's pages out again.
// Exactly one of:
// - `pages: "2-4,7"`: one PDF of those pages, in that order;
// - `ranges: ["1-3", "4-"]`: one PDF per range, as a ZIP;
// - `every: N`: parts of N pages (the last may be shorter), as a ZIP.
// Each part keeps the outline items that point into it, its internal links
// whose targets it holds, its form fields, annotations and page labels.
import { zipSync } from 'fflate';
import * as v from 'valibot';
import type { DocOpsOptions, FieldError } from '../protocol.js';
import { finishDocument, type SourceStructure } from '../seams/pdf-structure.js';
import { binaryTask, TaskFailure, type BinaryResult } from '../task/json-task.js';
import { decodePdfField } from '../task/pdf-field.js';
import { invalidSelection, selectPages } from '../task/page-selection.js';
import { assemblePages, openCounted } from './assemble.js';
import { NO_DECODED_CAP, PageSelectionText, Password } from './fields.js';
import { mapLinks, mapOutline, pageMap } from './structure.js';
import { base64Member } from '../task/decoded-member.js';

/** Parts in one ZIP: each is a qpdf run and a pdf-lib pass (~a few ms for small parts, measured in bench/). */
export const MAX_SPLIT_PARTS = 1000;

const SplitRequest = v.pipe(
  v.strictObject({
    pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
    password: v.optional(Password),
    pages: v.optional(PageSelectionText),
    ranges: v.optional(
      v.pipe(v.array(PageSelectionText), v.minLength(1, 'must hold at least one range'), v.maxLength(MAX_SPLIT_PARTS, `must hold at most ${MAX_SPLIT_PARTS} ranges`)),
    ),
    every: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'))),
  }),
  v.check((request) => [request.pages, request.ranges, request.every].filter((x) => x !== undefined).length === 1, 'send exactly one of pages, ranges or every'),
);

type SplitRequest = v.InferOutput<typeof SplitRequest>;

export const split = binaryTask(SplitRequest, async (request: SplitRequest, options: DocOpsOptions): Promise<BinaryResult> => {
  // Counted once for every part (each qpdf run below reads the same file the
  // same way), and before pdf-lib reads it, as merge does (assemble.ts).
  const { structure, bytes, password } = await openCounted(decodePdfField(request.pdf, 'pdf', NO_DECODED_CAP), request.password, 'pdf', 'password');
  const part = async (selection: readonly number[]): Promise<Uint8Array> => {
    const assembled = await assemblePages([{ bytes, password, pages: selection, field: 'pdf' }]);
    return finish(assembled, structure, selection);
  };
  if (request.pages !== undefined) {
    const selection = selectPages(request.pages, structure.pageCount, 'pages', options.maxPages);
    return { bytes: await part(selection), mediaType: 'application/pdf' };
  }
  const selections = request.ranges !== undefined ? rangeSelections(request.ranges, structure.pageCount, options.maxPages) : everySelections(request.every as number, structure.pageCount);
  const width = String(selections.length).length;
  const files: Record<string, Uint8Array> = {};
  for (const [i, selection] of selections.entries()) {
    files[`part-${String(i + 1).padStart(width, '0')}.pdf`] = await part(selection);
  }
  // Stored, not deflated: the parts' streams are already compressed, and
  // deflating them again cost time for a few percent at most.
  return { bytes: zipSync(files, { level: 0, mtime: new Date('2000-01-01T00:00:00Z') }), mediaType: 'application/zip' };
}, { binaryFields: ['pdf'] });

async function finish(assembled: Uint8Array, structure: SourceStructure, selection: readonly number[]): Promise<Uint8Array> {
  const map = pageMap(selection, 0);
  return finishDocument(assembled, {
    outline: mapOutline(structure.outline, map),
    links: mapLinks(structure.links, selection, map),
    info: { ...structure.info, producer: 'Platen' },
  });
}

/** Every range resolved; the errors of all bad ranges at once, each naming its index. */
function rangeSelections(ranges: readonly string[], pageCount: number, maxPages: number): number[][] {
  const errors: FieldError[] = [];
  const selections: number[][] = [];
  let total = 0;
  ranges.forEach((range, i) => {
    try {
      const selection = selectPages(range, pageCount, `ranges[${i}]`, maxPages);
      total += selection.length;
      selections.push(selection);
    } catch (error) {
      if (!(error instanceof TaskFailure)) throw error;
      errors.push(...error.errors);
    }
  });
  if (errors.length > 0) throw invalidSelection(errors);
  if (total > maxPages) throw TaskFailure.field('ranges', 'TOO_LARGE', `The parts hold more than ${maxPages} pages in all (PLATEN_MAX_PAGES).`);
  return selections;
}

function everySelections(every: number, pageCount: number): number[][] {
  const parts = Math.ceil(pageCount / every);
  if (parts > MAX_SPLIT_PARTS) {
    throw TaskFailure.field('every', 'OUT_OF_RANGE', `${every} pages a part makes ${parts} parts of this ${pageCount}-page document; at most ${MAX_SPLIT_PARTS} parts are made.`);
  }
  const selections: number[][] = [];
  for (let first = 0; first < pageCount; first += every) {
    selections.push([...Array(Math.min(every, pageCount - first)).keys()].map((i) => first + i));
  }
  return selections;
}
