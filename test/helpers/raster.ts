// What poppler paints (pdftoppm) in one area of a page: the count of dark
// pixels, to tell an empty box from one that shows a value; or its mean
// colour.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { withFile } from './pdf-tools.js';

const run = promisify(execFile);

/** An area in PDF space (points, origin bottom-left) of a page of the given height. */
export interface Area {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Pixels darker than mid-grey in `area` of a page (1-based), rendered at 72 dpi (one pixel a point). */
export async function darkPixels(pdf: Uint8Array, area: Area, pageHeight = 792, page = 1): Promise<number> {
  const top = Math.round(pageHeight - area.y - area.height);
  const args = ['-f', String(page), '-l', String(page), '-r', '72', '-gray', '-x', String(Math.round(area.x)), '-y', String(top), '-W', String(Math.round(area.width)), '-H', String(Math.round(area.height))];
  const pgm = await withFile(pdf, async (path) => (await run('pdftoppm', [...args, path], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })).stdout as Buffer);
  // Binary PGM (P5): three header lines (magic, width height, maxval), then one byte a pixel.
  let offset = 0;
  for (let lines = 0; lines < 3; offset++) if (pgm[offset] === 0x0a) lines++;
  let dark = 0;
  for (let i = offset; i < pgm.length; i++) if ((pgm[i] as number) < 128) dark++;
  return dark;
}

/** The mean colour (0-255 for red, green, blue) of `area` of a page (1-based), rendered at 72 dpi: a list box's highlighted row is light blue. */
export async function meanColour(pdf: Uint8Array, area: Area, pageHeight = 792, page = 1): Promise<{ r: number; g: number; b: number }> {
  const top = Math.round(pageHeight - area.y - area.height);
  const args = ['-f', String(page), '-l', String(page), '-r', '72', '-x', String(Math.round(area.x)), '-y', String(top), '-W', String(Math.round(area.width)), '-H', String(Math.round(area.height))];
  const ppm = await withFile(pdf, async (path) => (await run('pdftoppm', [...args, path], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })).stdout as Buffer);
  // Binary PPM (P6): three header lines, then three bytes a pixel.
  let offset = 0;
  for (let lines = 0; lines < 3; offset++) if (ppm[offset] === 0x0a) lines++;
  const sum = [0, 0, 0];
  const pixels = Math.max(1, (ppm.length - offset) / 3);
  for (let i = offset; i + 2 < ppm.length; i += 3) for (let c = 0; c < 3; c++) (sum[c] as number) += ppm[i + c] as number;
  const [r = 0, g = 0, b = 0] = sum.map((total) => Math.round(total / pixels));
  return { r, g, b };
}
