// The PDF reader every reading task stands on (types.ts says what it gives).
// openReader() maps every way opening can fail to a returned failure of the
// task (TaskFailure): a missing or wrong password is 422
// `pdf-password-required`, bytes that are not a readable PDF are 422
// `invalid-pdf-data`, both with errors[] naming the request field. Pages are
// read one at a time: a task asks for a page, reads it, closes it, so a
// 2,000-page document never holds more than one page's objects.
import { TaskFailure } from '../task/json-task.js';
import { checkPdfBytes } from '../untrusted/pdf-bytes.js';
import { DRAW_OPS, decodedImage, displayTransform, openPdf, operatorListOf, PDF_OPS, type PdfDocument, type PdfPage } from '../seams/pdfjs.js';
import { annotationTexts } from './annotation-texts.js';
import { documentInfo } from './document-info.js';
import { formFields } from './forms.js';
import { bookmarks } from './outline.js';
import { repairNotice } from './repair.js';
import { readText } from './text.js';
import type { OperatorOptions, Operators, ReaderDocument, ReaderPage, TextItem, TextOptions } from './types.js';

/** The request's field names, so errors[] point at them (`pdf_data` on the accelerator, `pdf` on the render API). */
export interface RequestFields {
  readonly data: string;
  readonly password: string;
}

export async function openReader(bytes: Uint8Array, password: string | undefined, fields: RequestFields): Promise<ReaderDocument> {
  // The pre-check every PDF task shares (untrusted/pdf-bytes.ts): one rule for where the header may be.
  const refusal = checkPdfBytes(bytes, fields.data);
  if (refusal !== undefined) throw invalid(fields, refusal.message);
  // Before pdf.js: it may detach the bytes.
  const notice = repairNotice(bytes);
  const opened = await openPdf(bytes, password);
  if (!opened.ok) {
    if (opened.reason === 'invalid') {
      throw invalid(fields, `${fields.data} could not be read as a PDF: it is damaged beyond repair or not a PDF.`, opened.message);
    }
    const needed = opened.reason === 'password-required' && password === undefined;
    const message = needed
      ? `the PDF in ${fields.data} is encrypted and needs a password to open; send it in ${fields.password}`
      : `the password in ${fields.password} does not open the PDF in ${fields.data} (neither its user nor its owner password)`;
    const error = needed ? { field: fields.password, code: 'REQUIRED', message } : { field: fields.password, code: 'INCORRECT', message };
    throw new TaskFailure('pdf-password-required', `${message[0]?.toUpperCase()}${message.slice(1)}.`, [error]);
  }
  return wrap(opened.document, notice);
}

function invalid(fields: RequestFields, detail: string, cause?: string): TaskFailure {
  return new TaskFailure('invalid-pdf-data', detail, [{ field: fields.data, code: 'INVALID_PDF', message: detail }], cause);
}

function wrap(document: PdfDocument, notice: string | null): ReaderDocument {
  return {
    pageCount: document.numPages,
    notice,
    info: () => documentInfo(document),
    bookmarks: () => bookmarks(document),
    page: async (number) => pageOf(await document.getPage(number), number),
    close: () => document.destroy(),
  };
}

function pageOf(page: PdfPage, number: number): ReaderPage {
  const display = displayTransform(page);
  const viewport = page.getViewport({ scale: 1 });
  let operatorList: ReturnType<typeof operatorListOf> | null = null;
  let annotatedList: ReturnType<typeof operatorListOf> | null = null;
  const operatorsOnce = () => (operatorList ??= operatorListOf(page));
  const annotatedOnce = () => (annotatedList ??= operatorListOf(page, true));
  return {
    number,
    size: { width: round(viewport.width), height: round(viewport.height) },
    async text(options: TextOptions): Promise<TextItem[]> {
      return readText(page, options.styles ? await operatorsOnce() : null);
    },
    async operators(options?: OperatorOptions): Promise<Operators> {
      const list = await (options?.annotations === true ? annotatedOnce() : operatorsOnce());
      const [a, b, c, d, e, f] = display as [number, number, number, number, number, number];
      return {
        fnArray: list.fnArray,
        argsArray: list.argsArray,
        ops: PDF_OPS,
        drawOps: DRAW_OPS,
        toPage: (x, y) => [a * x + c * y + e, b * x + d * y + f] as const,
      };
    },
    decodedImage: (name) => decodedImage(page, name),
    formFields: () => formFields(page, display),
    annotationTexts: () => annotationTexts(page, display),
    close: () => {
      page.cleanup();
    },
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
