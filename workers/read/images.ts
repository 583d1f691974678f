// Where a page paints its images: a walk over the operator list keeping the
// current transformation matrix (cm, q/Q, form XObjects), since an image is
// the unit square drawn through the matrix in force (ISO 32000-1, 8.9.4).
// Placements come back as page boxes with the pixel size pdf.js decoded;
// what the PDF says of the pixels (colour space, bits, filter) is added by
// the caller from the image dictionaries (seams/pdf-images.ts).
import { apply, IDENTITY, isMatrix, multiply, type Matrix } from './matrix.js';
import type { DecodedImage, Operators } from './types.js';

export interface Placement {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly pixelWidth: number;
  readonly pixelHeight: number;
  readonly inline: boolean;
  /** The XObject's name in the page's resources (what `ReaderPage.decodedImage` takes); null for an inline image. */
  readonly name: string | null;
  /** An inline image's samples as pdf.js decoded them; null for an XObject (ask `decodedImage(name)`). */
  readonly inlineImage: DecodedImage | null;
}

export function imagePlacements(operators: Operators): Placement[] {
  const { fnArray, argsArray, ops } = operators;
  const placements: Placement[] = [];
  let ctm: Matrix = IDENTITY;
  const stack: Matrix[] = [];
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) ctm = stack.pop() ?? ctm;
    else if (fn === ops.transform && args !== null && args.length === 6) ctm = multiply(args as unknown as Matrix, ctm);
    else if (fn === ops.paintFormXObjectBegin) {
      stack.push(ctm);
      if (isMatrix(args?.[0])) ctm = multiply(Array.from(args[0] as ArrayLike<number>) as unknown as Matrix, ctm);
    } else if (fn === ops.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === ops.paintImageXObject || fn === ops.paintImageXObjectRepeat) {
      const [name, width, height] = (args ?? []) as [unknown, unknown, unknown];
      placements.push({ ...box(ctm, operators), pixelWidth: Number(width) || 0, pixelHeight: Number(height) || 0, inline: false, name: typeof name === 'string' ? name : null, inlineImage: null });
    } else if (fn === ops.paintInlineImageXObject) {
      const image = (args?.[0] ?? {}) as { width?: unknown; height?: unknown; data?: unknown };
      const [width, height] = [Number(image.width) || 0, Number(image.height) || 0];
      const inlineImage = image.data instanceof Uint8Array && width > 0 && height > 0 ? { width, height, data: image.data } : null;
      placements.push({ ...box(ctm, operators), pixelWidth: width, pixelHeight: height, inline: true, name: null, inlineImage });
    }
  }
  return placements;
}

/** Where the unit square lands through the matrix, as a page box. */
function box(ctm: Matrix, operators: Operators): Pick<Placement, 'x' | 'y' | 'width' | 'height'> {
  const corners = [apply(ctm, 0, 0), apply(ctm, 1, 0), apply(ctm, 0, 1), apply(ctm, 1, 1)].map(([x, y]) => operators.toPage(x, y));
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x: round(x), y: round(y), width: round(Math.max(...xs) - x), height: round(Math.max(...ys) - y) };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
