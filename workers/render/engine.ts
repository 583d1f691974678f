// Renders a validated RenderRequest: runs the operations in order against a
// flow of pages, adds the page furniture once the page count is known, then
// hands each page's content stream to the PDF seam.
import { createDocument, FontError, type Attachment } from '../seams/pdf.js';
import { BLACK } from './canvas.js';
import { decodeBase64Field, RenderError } from './errors.js';
import type { RenderContext } from './context.js';
import { checkContentBox, Flow, PageLimitError, type Margins } from './flow.js';
import { FontBook } from './fonts.js';
import { drawFurniture } from './furniture.js';
import { Headings } from './headings.js';
import type { TextStyle } from './inline.js';
import { OPERATIONS, type OperationName } from './operations.js';
import { pageSize, type Orientation } from './page-sizes.js';
import type { FieldError } from '../protocol.js';
import type { RenderRequest } from './schema.js';
import { PAGINATION, Structure } from './tagging/structure.js';

export const DEFAULT_STYLE: TextStyle = Object.freeze({
  family: 'Helvetica',
  bold: false,
  italic: false,
  size: 12,
  color: BLACK,
  lineHeight: 1.2,
  underline: false,
  strike: false,
});

export interface RenderLimits {
  readonly maxPages: number;
  /** Called as operations complete, with 0-99; 100 is the saved document. */
  readonly onProgress?: (percent: number) => void;
  /** The client's registered fonts, family → file (RenderOptions.fonts). */
  readonly fonts?: Readonly<Record<string, string>>;
}

export async function renderDocument(request: RenderRequest, limits: RenderLimits): Promise<Uint8Array> {
  const archival = request.output.pdf_a;
  const tagged = request.output.tagged;
  checkWholeRequest(request);
  const doc = await createDocument({ compress: request.output.compress, ...(archival === undefined ? {} : { pdfA: archival }) });
  // Decoded before any layout: a bad file is a 422 at once, not after the pages are drawn.
  if (request.output.attachments !== undefined) doc.setAttachments(decodeAttachments(request.output.attachments));
  const facturX = request.output.factur_x;
  if (facturX !== undefined) doc.setFacturX({ fileName: facturX.file_name, profile: facturX.profile, version: facturX.version });
  const margins = marginsOf(request.margin);
  const size = (name: string | undefined, orientation: Orientation | undefined) =>
    pageSize(name ?? request.page_size, orientation ?? request.orientation) as [number, number];
  checkContentBox(size(undefined, undefined), margins, 'margin');
  // Tagged with `tagged` true (PDF/UA-1, which also asks alt of every image) or "structure".
  const structure = request.output.structure ? new Structure({ pdfUa: tagged }) : undefined;
  const flow = new Flow(size(undefined, undefined), margins, limits.maxPages, structure);
  // PDF/A and PDF/UA (7.21.4.1) embed every font: the standard families are drawn with DejaVu faces instead (fonts.ts).
  const fonts = new FontBook(doc, limits.fonts, archival !== undefined || tagged, request.metadata?.language);
  const headings = new Headings();
  const context: RenderContext = { doc, flow, fonts, headings, style: DEFAULT_STYLE, pageSize: size };

  for (const [index, op] of request.operations.entries()) {
    const type = OPERATIONS[op.type as OperationName] as { run(op: unknown, context: RenderContext, at: string): Promise<void> | void };
    try {
      await type.run(op, context, `operations[${index}]`);
    } catch (error) {
      if (error instanceof FontError) throw invalidFont(`operations[${index}]`, error);
      if (!(error instanceof PageLimitError)) throw error;
      throw new RenderError([
        {
          field: `operations[${index}]`,
          code: 'TOO_LARGE',
          message: `The document would have more than ${error.limit} pages (PLATEN_MAX_PAGES); split it into several documents.`,
        },
      ]);
    }
    // Layout is most of the work; saving takes the last few percent.
    limits.onProgress?.(Math.floor((95 * (index + 1)) / request.operations.length));
  }
  // A PDF needs a page; a request of only set_font gets a blank one.
  if (flow.pages.length === 0) flow.newPage();
  try {
    // Headers, footers and page numbers repeat on every page: pagination artifacts, outside the structure tree.
    structure?.enter(PAGINATION);
    await drawFurniture(flow.pages, margins, fonts, request.header, request.footer);
    structure?.close();
    for (const page of flow.pages) doc.addPage(page.content());
    if (request.metadata !== undefined) doc.setMetadata(request.metadata);
    const pageIndex = new Map<object, number>(flow.pages.map((page, index) => [page, index]));
    if (structure !== undefined) doc.setStructure({ root: structure.root, pageIndex: (page) => pageIndex.get(page) as number, pdfUa: tagged });
    if (request.output.outline) {
      doc.setOutline(
        headings.entries.map((entry) => {
          const page = pageIndex.get(entry.page) as number;
          return { level: entry.level, title: entry.title, page, y: (flow.pages[page] as { height: number }).height - entry.top };
        }),
      );
    }
    return await doc.save();
  } catch (error) {
    if (error instanceof FontError) throw invalidFont('operations', error);
    throw error;
  }
}

/**
 * What the request as a whole must satisfy before any layout (the jobs'
 * validate task runs it too): a tagged file's title and language, a
 * language tag PDF/A-1a accepts, attachment names unique in the file.
 * Every problem is named at once.
 */
export function checkWholeRequest(request: RenderRequest): void {
  const errors: FieldError[] = request.output.tagged ? taggedMetadataErrors(request.metadata) : [];
  const language = request.metadata?.language;
  // veraPDF's PDF/A-1A 6.8.4-1 tests /Lang as RFC 1766 has it: letters only (no "es-419", which RFC 3066 and BCP 47 allow).
  if (request.output.pdf_a === '1a' && language !== undefined && !/^[a-zA-Z]{1,8}(-[a-zA-Z]{1,8})*$/.test(language)) {
    errors.push({ field: 'metadata.language', code: 'INVALID_VALUE', message: 'PDF/A-1a takes a language tag of letters only (RFC 1766, e.g. es or en-GB): drop the numeric subtag, or ask for pdf_a "2a"' });
  }
  const seen = new Set<string>();
  request.output.attachments?.forEach((file, index) => {
    if (seen.has(file.name)) errors.push({ field: `output.attachments[${index}].name`, code: 'DUPLICATE', message: `another attachment is already named "${file.name}": a reader lists and extracts files by name, so give each its own` });
    seen.add(file.name);
  });
  if (errors.length > 0) throw new RenderError(errors);
}

function decodeAttachments(files: NonNullable<RenderRequest['output']['attachments']>): Attachment[] {
  return files.map((file, index) => ({
    name: file.name,
    // Bounded by the body cap (PLATEN_MAX_BODY_BYTES) the server read the request under; 2^31 is Node's Buffer limit.
    bytes: decodeBase64Field(file.data, 2 ** 31 - 1, `output.attachments[${index}].data`, { 'too-large': 'TOO_LONG', invalid: 'INVALID_FORMAT' }),
    mimeType: file.mime_type,
    relationship: file.relationship,
    ...(file.description === undefined ? {} : { description: file.description }),
  }));
}

/**
 * PDF/UA-1 asks a tagged file to show its title (7.1) and to say its
 * language (7.2): both come from the request, as the engine cannot know
 * either. Every missing field is named at once.
 */
function taggedMetadataErrors(metadata: RenderRequest['metadata']): FieldError[] {
  const errors: FieldError[] = [];
  if (metadata?.title === undefined || metadata.title.trim() === '') {
    errors.push({ field: 'metadata.title', code: 'REQUIRED', message: 'a tagged PDF (output.tagged, or pdf_a level a: 1a, 2a, 3a) shows its title in the window bar: give the document a title' });
  }
  if (metadata?.language === undefined) {
    errors.push({ field: 'metadata.language', code: 'REQUIRED', message: 'a tagged PDF (output.tagged, or pdf_a level a: 1a, 2a, 3a) says its language for screen readers: give a language tag such as en or en-GB' });
  }
  return errors;
}

/** A client's font failed where only using it could tell (a glyph's outline, a GSUB lookup). */
function invalidFont(field: string, error: FontError): RenderError {
  return new RenderError([{ field, code: 'INVALID_FONT', message: error.message }], error.cause);
}

function marginsOf(margin: RenderRequest['margin']): Margins {
  if (typeof margin === 'number') return { top: margin, right: margin, bottom: margin, left: margin };
  return { top: margin.top ?? 50, right: margin.right ?? 50, bottom: margin.bottom ?? 50, left: margin.left ?? 50 };
}
