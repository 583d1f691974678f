// What poppler paints (pdftoppm) in one area of a page: the count of dark
// pixels, to tell an empty box from one that shows a value.
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
