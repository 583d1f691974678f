// The images a page paints, for comparison: where each lands on the page
// (the unit square through the current transformation matrix, ISO 32000-1
// 8.9.5) and a hash of the pixels pdf.js decoded, so an image re-encoded
// without a visible change (another compression, another object number)
// compares equal, and a changed pixel does not.
import { createHash } from 'node:crypto';
import { IDENTITY, isMatrix, multiply, type Matrix } from '../read/matrix.js';
import type { ReaderPage } from '../read/types.js';

export interface ImageMark {
  /** SHA-256 of the decoded samples and their size, hex, shortened to 16 characters. */
  readonly hash: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly pixelWidth: number;
  readonly pixelHeight: number;
}

/** Bounds the work on pages that tile thousands of small images. */
const MAX_IMAGES = 500;

export async function pageImages(page: ReaderPage): Promise<ImageMark[]> {
  const operators = await page.operators();
  const { ops, fnArray, argsArray } = operators;
  const images: ImageMark[] = [];
  const stack: Matrix[] = [];
  let ctm: Matrix = IDENTITY;
  for (let i = 0; i < fnArray.length && images.length < MAX_IMAGES; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore || fn === ops.paintFormXObjectEnd) ctm = stack.pop() ?? IDENTITY;
    else if (fn === ops.transform && args?.length === 6) ctm = multiply(args as unknown as Matrix, ctm);
    else if (fn === ops.paintFormXObjectBegin) {
      stack.push(ctm);
      if (isMatrix(args?.[0])) ctm = multiply(args[0], ctm);
    } else if (fn === ops.paintImageXObject && typeof args?.[0] === 'string') {
      const decoded = page.decodedImage(args[0]);
      if (decoded) images.push(mark(ctm, operators.toPage, decoded));
    } else if (fn === ops.paintInlineImageXObject) {
      const inline = args?.[0] as { width?: unknown; height?: unknown; data?: unknown } | undefined;
      if (inline && typeof inline.width === 'number' && typeof inline.height === 'number' && inline.data instanceof Uint8Array) {
        images.push(mark(ctm, operators.toPage, { width: inline.width, height: inline.height, data: inline.data }));
      }
    }
  }
  return images;
}

function mark(ctm: Matrix, toPage: (x: number, y: number) => readonly [number, number], image: { width: number; height: number; data: Uint8Array }): ImageMark {
  const corners = [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ].map(([u, v]) => toPage(ctm[0] * (u as number) + ctm[2] * (v as number) + ctm[4], ctm[1] * (u as number) + ctm[3] * (v as number) + ctm[5]));
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const hash = createHash('sha256').update(`${image.width}x${image.height}:`).update(image.data).digest('hex').slice(0, 16);
  return {
    hash,
    x: round(Math.min(...xs)),
    y: round(Math.min(...ys)),
    width: round(Math.max(...xs) - Math.min(...xs)),
    height: round(Math.max(...ys) - Math.min(...ys)),
    pixelWidth: image.width,
    pixelHeight: image.height,
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
