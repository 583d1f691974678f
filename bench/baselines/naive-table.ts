// The naive way to draw the invoice table: pdf-lib's drawText for every cell
// and drawRectangle for every row, on one thread, with the same rows, widths
// and page breaks the engine has to produce. The engine must beat it at least
// threefold (issue target); it wraps text and repeats headers too, which this
// baseline does not even attempt, so the comparison favours the baseline.
//
// This module imports nothing but pdf-lib, and runs in a worker thread of
// its own (naive-table-thread.ts): our PDF seam patches pdf-lib's
// PDFFlateStream to deflate with node:zlib (workers/seams/pdf-deflate.ts),
// process-wide, so a baseline run where the seam was ever loaded measures
// our optimisation, not the pdf-lib a user gets (issue 14: the ratio fell
// from 3.38 to 2.22 when the patch landed). assertStockFlate proves it.
import { PDFDocument, PDFFlateStream, StandardFonts, rgb } from '@cantoo/pdf-lib';

const WIDTHS = [70, 255, 35, 65, 70];
const ROW_HEIGHT = 16;

export async function naiveInvoice(header: readonly string[], rows: readonly (readonly string[])[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = doc.embedStandardFont(StandardFonts.Helvetica);
  const bold = doc.embedStandardFont(StandardFonts.HelveticaBold);
  let page = doc.addPage([595.28, 841.89]);
  let y = 841.89 - 50 - ROW_HEIGHT;
  const row = (cells: readonly string[], isHeader: boolean, index: number) => {
    if (y < 50) {
      page = doc.addPage([595.28, 841.89]);
      y = 841.89 - 50 - ROW_HEIGHT;
    }
    if (isHeader || index % 2 === 1) page.drawRectangle({ x: 50, y: y - 4, width: 495, height: ROW_HEIGHT, color: rgb(0.95, 0.95, 0.96) });
    let x = 50;
    cells.forEach((text, column) => {
      page.drawText(text.slice(0, 48), { x: x + 4, y, size: 10, font: isHeader ? bold : font, color: rgb(0, 0, 0) });
      x += WIDTHS[column] ?? 60;
    });
    y -= ROW_HEIGHT;
  };
  row(header, true, 0);
  rows.forEach((cells, index) => row(cells, false, index));
  return doc.save();
}

interface FlateStreamInternals {
  readonly computeContents: () => Uint8Array;
  readonly contentsCache: { readonly populate: () => Uint8Array };
  getContents(): Uint8Array;
}

/**
 * Throws unless pdf-lib's flate streams are stock in this thread: a content
 * stream's cache must still be populated by the stream's own
 * computeContents (fflate) after its contents were read. The seam's patch
 * swaps that populate function on first read, however it is written.
 */
export async function assertStockFlate(): Promise<void> {
  const doc = await PDFDocument.create();
  const created: unknown = doc.context.contentStream([]);
  if (!(created instanceof PDFFlateStream)) throw new Error('pdf-lib content streams are no longer PDFFlateStreams: check what the baseline measures');
  const stream = created as unknown as FlateStreamInternals;
  stream.getContents();
  if (stream.contentsCache.populate !== stream.computeContents) throw new Error('pdf-lib PDFFlateStream is patched in this thread (our PDF seam was loaded): the baseline would not measure stock pdf-lib');
}
