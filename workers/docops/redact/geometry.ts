// Matrices and boxes for the redaction. Matrices are PDF's six numbers
// [a b c d e f] acting on row vectors (ISO 32000-1 section 8.3.4), so
// `multiply(m1, m2)` is "m1, then m2", as `cm` composes with the CTM.

export type Matrix = readonly [number, number, number, number, number, number];

/** An axis-aligned box: x0 <= x1, y0 <= y1. */
export interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export function multiply(m1: Matrix, m2: Matrix): Matrix {
  const [a1, b1, c1, d1, e1, f1] = m1;
  const [a2, b2, c2, d2, e2, f2] = m2;
  return [a1 * a2 + b1 * c2, a1 * b2 + b1 * d2, c1 * a2 + d1 * c2, c1 * b2 + d1 * d2, e1 * a2 + f1 * c2 + e2, e1 * b2 + f1 * d2 + f2];
}

export function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** The inverse, or null for a matrix that flattens space (nothing drawn through it is visible). */
export function invert(m: Matrix): Matrix | null {
  const [a, b, c, d, e, f] = m;
  const det = a * d - b * c;
  if (det === 0 || !Number.isFinite(det)) return null;
  return [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det];
}

/** The box around a rectangle of one space seen through `m`. */
export function boxThrough(m: Matrix, x0: number, y0: number, x1: number, y1: number): Box {
  const corners = [apply(m, x0, y0), apply(m, x1, y0), apply(m, x0, y1), apply(m, x1, y1)];
  return boxAround(corners);
}

export function boxAround(points: readonly (readonly [number, number])[]): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of points) {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return { x0, y0, x1, y1 };
}

/** Overlap with positive extent; a box of zero width (a point) overlaps an area it lies strictly inside. */
export function overlaps(a: Box, b: Box): boolean {
  return a.x0 < b.x1 && a.x1 > b.x0 && a.y0 < b.y1 && a.y1 > b.y0;
}

export function contains(outer: Box, inner: Box): boolean {
  return inner.x0 >= outer.x0 && inner.x1 <= outer.x1 && inner.y0 >= outer.y0 && inner.y1 <= outer.y1;
}

export function intersection(a: Box, b: Box): Box | null {
  const box = { x0: Math.max(a.x0, b.x0), y0: Math.max(a.y0, b.y0), x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1) };
  return box.x0 < box.x1 && box.y0 < box.y1 ? box : null;
}

/** The image's pixels under each area it overlaps: [column, row, columns, rows], row 0 at the image's top (ISO 32000-1 section 8.9.5). */
export function pixelRects(areas: readonly Box[], toDisplay: Matrix, width: number, height: number): [number, number, number, number][] {
  const toUnit = invert(toDisplay);
  if (toUnit === null) return [];
  const placed = boxThrough(toDisplay, 0, 0, 1, 1);
  const rects: [number, number, number, number][] = [];
  for (const area of areas) {
    const part = intersection(area, placed);
    if (part === null) continue;
    const unit = boxThrough(toUnit, part.x0, part.y0, part.x1, part.y1);
    const column = Math.max(0, Math.floor(unit.x0 * width));
    const columnEnd = Math.min(width, Math.ceil(unit.x1 * width));
    const row = Math.max(0, Math.floor((1 - unit.y1) * height));
    const rowEnd = Math.min(height, Math.ceil((1 - unit.y0) * height));
    if (columnEnd > column && rowEnd > row) rects.push([column, row, columnEnd - column, rowEnd - row]);
  }
  return rects;
}
