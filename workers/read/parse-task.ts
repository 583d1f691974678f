// The `parse` task (POST /v1/parse): document metadata, and per page its
// text blocks in reading order, tables, form fields and (when asked) images,
// plus the bookmark tree when asked. Pages are read one at a time and
// released; work nobody asked for is skipped (no text read when neither text
// nor tables are wanted, no form annotations when forms are not).
import * as v from 'valibot';
import type { ReadOptions } from '../protocol.js';
import { jsonTask, type JsonResult } from '../task/json-task.js';
import { layoutPage } from './layout/page-layout.js';
import { openImageIndex, type ImageDictionary } from '../seams/pdf-images.js';
import { imagePlacements, type Placement } from './images.js';
import { openReader } from './reader.js';
import { decodePdf, LanguageHint, PageRange, selectPages, WorkBudget } from './request.js';
import { pageTables } from './tables/page-tables.js';
import type { Bookmark, DocumentInfo, FormField, PlacedImage, ReaderDocument } from './types.js';
import { base64Member } from '../task/decoded-member.js';
import { countSignatures } from '../untrusted/pdf-scan.js';

const ParseRequest = v.strictObject({
  pdf_data: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.string()),
  options: v.optional(
    v.strictObject({
      extract_text: v.optional(v.boolean(), true),
      extract_tables: v.optional(v.boolean(), true),
      extract_forms: v.optional(v.boolean(), true),
      extract_images: v.optional(v.boolean(), false),
      extract_bookmarks: v.optional(v.boolean(), false),
      page_range: v.optional(PageRange),
      language_hint: v.optional(LanguageHint),
    }),
    {},
  ),
});

type ParseRequest = v.InferOutput<typeof ParseRequest>;
type ParseOptions = ParseRequest['options'];

const FIELDS = { data: 'pdf_data', password: 'password' };

export const parse = jsonTask(
  ParseRequest,
  async (request: ParseRequest, options: ReadOptions): Promise<JsonResult> => {
    const bytes = decodePdf(request.pdf_data, 'pdf_data');
    // pdf.js may take (detach) the bytes it is given: the image index reads a copy, and only when images are asked for.
    const imageIndex = request.options.extract_images ? bytes.slice() : null;
    // Read before pdf.js takes the bytes. The one definition of a signature
    // (untrusted/pdf-scan.ts), which linearize, optimize and forensic-analyze
    // count by: pdf.js's IsSignaturesPresent is the AcroForm's SigFlags bit,
    // which a usage-rights signature (/Perms /UR3) does not set.
    const signed = countSignatures(bytes) > 0;
    const document = await openReader(bytes, request.password, FIELDS);
    try {
      const { first, last } = selectPages(request.options.page_range, document.pageCount, options, 'options.page_range');
      const metadata = metadataOf(await document.info(), signed);
      const images = imageIndex === null ? null : await openImageIndex(imageIndex, request.password);
      const pages = await readPages(document, first, last, request.options, new WorkBudget(options.workBudget, 'pdf_data'), images);
      const data: Record<string, unknown> = { page_count: document.pageCount, notice: document.notice, metadata, pages };
      if (request.options.extract_bookmarks) data.bookmarks = bookmarksOf(await document.bookmarks());
      return { data };
    } finally {
      await document.close();
    }
  },
  { binaryFields: ['pdf_data'] },
);

type ImageIndex = ((pageIndex: number) => ImageDictionary[]) | null;

async function readPages(document: ReaderDocument, first: number, last: number, wanted: ParseOptions, budget: WorkBudget, imageIndex: ImageIndex) {
  const pages = [];
  const needsOperators = wanted.extract_text || wanted.extract_tables || wanted.extract_images;
  for (let number = first; number <= last; number++) {
    const page = await document.page(number);
    try {
      const operators = needsOperators ? await page.operators() : null;
      if (operators !== null) budget.spend(operators.fnArray.length, number);
      const items = wanted.extract_text || wanted.extract_tables ? await page.text({ styles: wanted.extract_text }) : [];
      budget.spend(items.length, number);
      const blocks = wanted.extract_text ? layoutPage(items, wanted.language_hint, page.size.width) : [];
      const parsed: Record<string, unknown> = {
        page_number: number,
        width: page.size.width,
        height: page.size.height,
        text_blocks: blocks.map((block, index) => ({
          text: block.text,
          x: block.x,
          y: block.y,
          width: block.width,
          height: block.height,
          font: block.font,
          font_size: block.fontSize,
          reading_order: index,
        })),
        tables: wanted.extract_tables && operators !== null ? pageTables(items, operators) : [],
        form_fields: wanted.extract_forms ? (await page.formFields()).map((field) => formFieldOf(field, number)) : [],
      };
      if (wanted.extract_images && operators !== null) parsed.images = withDictionaries(imagePlacements(operators), imageIndex?.(number - 1) ?? []).map(imageOf);
      pages.push(parsed);
    } finally {
      page.close();
    }
  }
  return pages;
}

function metadataOf(info: DocumentInfo, signed: boolean) {
  return {
    title: info.title,
    author: info.author,
    subject: info.subject,
    keywords: info.keywords,
    creator: info.creator,
    producer: info.producer,
    created_at: info.createdAt,
    modified_at: info.modifiedAt,
    pdf_version: info.pdfVersion,
    is_linearized: info.isLinearized,
    has_signatures: signed,
  };
}

function formFieldOf(field: FormField, page: number) {
  return {
    name: field.name,
    type: field.type,
    value: field.value,
    options: field.options,
    page,
    x: field.x,
    y: field.y,
    width: field.width,
    height: field.height,
    required: field.required,
    read_only: field.readOnly,
  };
}

/**
 * Each placement with the dictionary of the image it paints, matched by
 * pixel size (pdf.js does not name the XObject it decoded): the first
 * unused dictionary of that size, else any of that size (one image painted
 * twice). Inline images have no dictionary.
 */
function withDictionaries(placements: readonly Placement[], dictionaries: readonly ImageDictionary[]): PlacedImage[] {
  const unused = [...dictionaries];
  return placements.map((placement) => {
    const fits = (d: ImageDictionary) => d.width === placement.pixelWidth && d.height === placement.pixelHeight;
    let dictionary: ImageDictionary | undefined;
    if (!placement.inline) {
      const index = unused.findIndex(fits);
      dictionary = index === -1 ? dictionaries.find(fits) : unused.splice(index, 1)[0];
    }
    return {
      x: placement.x,
      y: placement.y,
      width: placement.width,
      height: placement.height,
      pixelWidth: placement.pixelWidth,
      pixelHeight: placement.pixelHeight,
      colorSpace: dictionary?.colorSpace ?? null,
      bitsPerComponent: dictionary?.bitsPerComponent ?? null,
      filter: dictionary?.filter ?? null,
    };
  });
}

function imageOf(image: PlacedImage) {
  return {
    x: image.x,
    y: image.y,
    width: image.width,
    height: image.height,
    pixel_width: image.pixelWidth,
    pixel_height: image.pixelHeight,
    color_space: image.colorSpace,
    bits_per_component: image.bitsPerComponent,
    filter: image.filter,
  };
}

interface BookmarkOut {
  readonly title: string;
  readonly page: number | null;
  readonly children: readonly BookmarkOut[];
}

function bookmarksOf(bookmarks: readonly Bookmark[]): BookmarkOut[] {
  return bookmarks.map((b) => ({ title: b.title, page: b.page, children: bookmarksOf(b.children) }));
}
