// The naive way to draw the invoice table: pdf-lib's drawText for every cell
// and drawRectangle for every row, on one thread, with the same rows, widths
// and page breaks the engine has to produce. The engine must beat it at least
// threefold (issue target); it wraps text and repeats headers too, which this
// baseline does not even attempt, so the comparison favours the baseline.
import { PDFDocument, StandardFonts, rgb } from '@cantoo/pdf-lib';
import { INVOICE_HEADER, INVOICE_ROWS } from '../engine-documents.js';
import { warmThenLoop } from '../loop.js';
import type { Settings } from '../settings.js';
import type { Throughput } from '../stats.js';

const WIDTHS = [70, 255, 35, 65, 70];
const ROW_HEIGHT = 16;

export async function naiveInvoice(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = doc.embedStandardFont(StandardFonts.Helvetica);
  const bold = doc.embedStandardFont(StandardFonts.HelveticaBold);
  let page = doc.addPage([595.28, 841.89]);
  let y = 841.89 - 50 - ROW_HEIGHT;
  const row = (cells: readonly string[], header: boolean, index: number) => {
    if (y < 50) {
      page = doc.addPage([595.28, 841.89]);
      y = 841.89 - 50 - ROW_HEIGHT;
    }
    if (header || index % 2 === 1) page.drawRectangle({ x: 50, y: y - 4, width: 495, height: ROW_HEIGHT, color: rgb(0.95, 0.95, 0.96) });
    let x = 50;
    cells.forEach((text, column) => {
      page.drawText(text.slice(0, 48), { x: x + 4, y, size: 10, font: header ? bold : font, color: rgb(0, 0, 0) });
      x += WIDTHS[column] ?? 60;
    });
    y -= ROW_HEIGHT;
  };
  row(INVOICE_HEADER, true, 0);
  INVOICE_ROWS.forEach((cells, index) => row(cells, false, index));
  return doc.save();
}

export function naiveTable(settings: Settings): Promise<Throughput> {
  return warmThenLoop(settings.warmupSeconds, settings.seconds, 1, async () => {
    await naiveInvoice();
  });
}
