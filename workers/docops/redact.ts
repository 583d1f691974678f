// The `redact` task (POST /api/v1/redact, pro): true removal (issue 11).
// Areas come from the request (page coordinates as /v1/parse reports them:
// points, top-left origin of the page as displayed, y down) and from text
// and patterns found with the reader (redact/find.ts). Then, page by page,
// what lies inside an area is taken out of the file (redact/content.ts:
// glyphs, paths, images, forms; annotations, links and form fields here),
// the areas are painted in fill_color, and the document is written as a
// fresh file without its metadata (seams/pdf-redaction.ts), so no earlier
// revision can bring anything back. X-Redactions says how many areas there
// were; none found is not an error.
import * as v from 'valibot';
import type { DocOpsOptions } from '../protocol.js';
import { openReader } from '../read/reader.js';
import { openForRedaction, UnreadablePdf, type RedactionPage } from '../seams/pdf-redaction.js';
import { binaryTask, TaskFailure, type BinaryResult } from '../task/json-task.js';
import { decodePdfField } from '../task/pdf-field.js';
import { NO_DECODED_CAP, Password } from './fields.js';
import { redactStream } from './redact/content.js';
import { MAX_FORM_WALKS, MAX_OPERATIONS, TooMuchContent, type RedactionCounts } from './redact/content-budget.js';
import { ContentSyntaxError } from './redact/lexer.js';
import { findAreas, patternSearch, phraseSearch, type Search } from './redact/find.js';
import { boxThrough, invert, overlaps, type Box, type Matrix } from './redact/geometry.js';
import { base64Member } from '../task/decoded-member.js';

export const MAX_AREAS = 10_000;
export const MAX_SEARCHES = 100;
const MAX_SEARCH_LENGTH = 1000;

const Coordinate = v.pipe(v.number(), v.finite());
const Extent = v.pipe(v.number(), v.finite(), v.gtValue(0, 'must be greater than 0'));

const RedactRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(Password),
  areas: v.optional(
    v.pipe(
      v.array(v.strictObject({ page: v.pipe(v.number(), v.integer(), v.minValue(1, 'must be 1 or more')), x: Coordinate, y: Coordinate, width: Extent, height: Extent })),
      v.maxLength(MAX_AREAS, `must hold at most ${MAX_AREAS} areas`),
    ),
  ),
  text: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(/\S/u, 'must contain a non-whitespace character'), v.maxLength(MAX_SEARCH_LENGTH, `must be at most ${MAX_SEARCH_LENGTH} characters`))),
      v.maxLength(MAX_SEARCHES, `must hold at most ${MAX_SEARCHES} phrases`),
    ),
  ),
  patterns: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(MAX_SEARCH_LENGTH, `must be at most ${MAX_SEARCH_LENGTH} characters`))),
      v.maxLength(MAX_SEARCHES, `must hold at most ${MAX_SEARCHES} patterns`),
    ),
  ),
  fill_color: v.optional(v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as "#rrggbb"')), '#000000'),
});

type RedactRequest = v.InferOutput<typeof RedactRequest>;

export const redact = binaryTask(RedactRequest, async (request: RedactRequest, options: DocOpsOptions): Promise<BinaryResult> => {
  const searches: Search[] = [
    ...(request.text ?? []).map((phrase, i) => phraseSearch(phrase, `text[${i}]`)),
    ...(request.patterns ?? []).map((pattern, i) => patternSearch(pattern, `patterns[${i}]`)),
  ];
  if ((request.areas ?? []).length === 0 && searches.length === 0) {
    throw TaskFailure.field('areas', 'REQUIRED', 'send at least one of areas, text or patterns: there is nothing to redact.');
  }
  const pdf = decodePdfField(request.pdf, 'pdf', NO_DECODED_CAP);
  // pdf.js may take over (detach) the bytes it is given: it reads a copy.
  const reader = await openReader(pdf.slice(), request.password, { data: 'pdf', password: 'password' });
  let areas: Map<number, Box[]>;
  try {
    if (reader.pageCount > options.maxPages) {
      throw TaskFailure.field('pdf', 'TOO_LARGE', `The document has ${reader.pageCount} pages; this server redacts at most ${options.maxPages} (PLATEN_MAX_PAGES).`);
    }
    areas = searches.length === 0 ? new Map() : await findAreas(reader, searches);
  } finally {
    await reader.close();
  }
  let document;
  try {
    document = await openForRedaction(pdf, request.password);
  } catch (error) {
    if (!(error instanceof UnreadablePdf)) throw error;
    throw TaskFailure.content('invalid-pdf-data', 'pdf', 'INVALID_PDF', 'could not be read for rewriting: its objects are damaged.', error.message);
  }
  for (const [i, area] of (request.areas ?? []).entries()) {
    const page = document.pages[area.page - 1];
    if (page === undefined) throw TaskFailure.field(`areas[${i}].page`, 'OUT_OF_RANGE', `page ${area.page} does not exist: the document has ${document.pages.length} pages.`);
    const box = { x0: area.x, y0: area.y, x1: area.x + area.width, y1: area.y + area.height };
    if (!overlaps(box, { x0: 0, y0: 0, x1: page.width, y1: page.height })) {
      throw TaskFailure.field(`areas[${i}]`, 'OUT_OF_RANGE', `lies outside page ${area.page}, which is ${page.width} x ${page.height} points (origin at the top-left corner, y down).`);
    }
    areas.set(area.page, [...(areas.get(area.page) ?? []), box]);
  }
  const fill = rgb(request.fill_color);
  const counts: RedactionCounts = { glyphs: 0, paths: 0, images: 0, operations: 0, forms: 0 };
  let total = 0;
  for (const [index, page] of document.pages.entries()) {
    const boxes = areas.get(index + 1) ?? [];
    if (boxes.length === 0) {
      page.finish(null, '', new Set());
      continue;
    }
    total += boxes.length;
    const content = await redactPage(page, index + 1, boxes, fill, counts);
    const annotations = new Set<number>();
    page.annotations().forEach((annotation, index) => {
      const [x0, y0, x1, y1] = annotation.rect;
      if (boxes.some((box) => overlaps(boxThrough(page.display, x0, y0, x1, y1), box))) annotations.add(index);
    });
    page.finish(content.bytes, paintedBoxes(boxes, page.display, request.fill_color), annotations);
  }
  const bytes = await document.save();
  return { bytes, mediaType: 'application/pdf', headers: [['X-Redactions', String(total)]] };
}, { binaryFields: ['pdf'] });

async function redactPage(page: RedactionPage, number: number, boxes: readonly Box[], fill: readonly [number, number, number], counts: RedactionCounts) {
  try {
    return await redactStream(page.content(), page.resources, [1, 0, 0, 1, 0, 0], { areas: boxes, display: page.display, fill }, counts);
  } catch (error) {
    // A stream we cannot follow cannot be redacted: refused, never painted over and sent back.
    if (error instanceof TooMuchContent) {
      throw TaskFailure.field('pdf', 'TOO_LARGE', `draws more than ${MAX_OPERATIONS} operations or ${MAX_FORM_WALKS} forms where the areas are (forms drawn inside forms count each time), more than this server redacts in one request.`);
    }
    if (!(error instanceof ContentSyntaxError)) throw error;
    throw TaskFailure.content('invalid-pdf-data', 'pdf', 'INVALID_PDF', `has content on page ${number} that cannot be read (${error.message}), so what it draws cannot be redacted.`);
  }
}

/** The areas filled in the colour, in the page's user space, appended after the page's own (saved and restored) content. */
function paintedBoxes(boxes: readonly Box[], display: Matrix, colour: string): string {
  const toUser = invert(display);
  if (toUser === null || boxes.length === 0) return '';
  const [r, g, b] = rgb(colour).map((channel) => Math.round((channel / 255) * 1000) / 1000);
  let out = `q ${r} ${g} ${b} rg\n`;
  for (const box of boxes) {
    const user = boxThrough(toUser, box.x0, box.y0, box.x1, box.y1);
    out += `${fixed(user.x0)} ${fixed(user.y0)} ${fixed(user.x1 - user.x0)} ${fixed(user.y1 - user.y0)} re\n`;
  }
  return `${out}f\nQ\n`;
}

function fixed(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

function rgb(colour: string): [number, number, number] {
  const value = Number.parseInt(colour.slice(1), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}
