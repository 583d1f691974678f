// Ruling lines from a page's operator list: the straight, axis-aligned
// pieces of every stroked path, and the axis of every thin filled rectangle
// (many producers draw a table's rules as 0.5 pt filled rectangles, not as
// strokes), with the current transformation matrix applied so lines inside
// `cm` and form XObjects land where they are displayed.
//
// The operator codes come with the operator list (the reader's seam passes
// pdf.js's OPS table), so this module stays free of pdf.js and tests can
// feed it hand-made operator lists.
import { IDENTITY, isMatrix, multiply, type Matrix } from '../matrix.js';
import type { Operators } from '../types.js';
import type { Segment } from './types.js';

const OPERATORS = [
  'save',
  'restore',
  'transform',
  'constructPath',
  'paintFormXObjectBegin',
  'paintFormXObjectEnd',
  'stroke',
  'closeStroke',
  'fill',
  'eoFill',
  'fillStroke',
  'eoFillStroke',
  'closeFillStroke',
  'closeEOFillStroke',
  // pdf.js turns every fill colour (gray, RGB, CMYK) into this, with a "#rrggbb" argument.
  'setFillRGBColor',
] as const;

const PATH_COMMANDS = ['moveTo', 'lineTo', 'curveTo', 'quadraticCurveTo', 'closePath'] as const;

type Codes<Names extends readonly string[]> = { readonly [K in Names[number]]: number };

function codes<Names extends readonly string[]>(table: Readonly<Record<string, number>>, names: Names): Codes<Names> {
  const out: Record<string, number> = {};
  for (const name of names) {
    const code = table[name];
    // The reader's seam hands over pdf.js's own tables: a missing name is a bug, not bad input.
    if (code === undefined) throw new Error(`the operator table has no ${name}`);
    out[name] = code;
  }
  return out as Codes<Names>;
}

/**
 * A filled rectangle no thicker than this is a rule, drawn as its centre
 * line. 2 pt: the corpus's producers draw rules 0.5 to 1.5 pt thick, and a
 * shaded cell is never this thin.
 */
const RULE_THICKNESS = 2;

/** Bounds the work on pages of vector art: past this many segments the rest are ignored. */
export const MAX_SEGMENTS = 20_000;

/** Off-axis by at most this (points, over the segment's length) still counts as horizontal or vertical. */
const AXIS_TOLERANCE = 0.5;

const WHITE = '#ffffff';

/**
 * The page's axis-aligned ruling segments, in page coordinates (the
 * reader's `toPage` maps PDF user space to the page as displayed, /Rotate
 * included).
 */
export function rulingSegments(operators: Operators): Segment[] {
  const ops = codes(operators.ops, OPERATORS);
  const draw = codes(operators.drawOps, PATH_COMMANDS);
  const segments: Segment[] = [];
  const boxes: ShadedBox[] = [];
  const stack: { ctm: Matrix; fill: string }[] = [];
  let ctm: Matrix = IDENTITY;
  let fill = '#000000';
  const strokes = new Set([ops.stroke, ops.closeStroke, ops.fillStroke, ops.eoFillStroke, ops.closeFillStroke, ops.closeEOFillStroke]);
  const fills = new Set([ops.fill, ops.eoFill]);
  const { fnArray, argsArray } = operators;
  for (let i = 0; i < fnArray.length && segments.length < MAX_SEGMENTS; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push({ ctm, fill });
    else if (fn === ops.restore || fn === ops.paintFormXObjectEnd) ({ ctm, fill } = stack.pop() ?? { ctm: IDENTITY, fill: '#000000' });
    else if (fn === ops.transform && args && args.length === 6) ctm = multiply(args as unknown as Matrix, ctm);
    else if (fn === ops.paintFormXObjectBegin) {
      stack.push({ ctm, fill });
      if (args && isMatrix(args[0])) ctm = multiply(args[0], ctm);
    } else if (fn === ops.setFillRGBColor) fill = typeof args?.[0] === 'string' ? args[0].toLowerCase() : '#000000';
    else if (fn === ops.constructPath && args) {
      const paint = args[0] as number;
      const data = (args[1] as unknown[] | undefined)?.[0];
      if (!(data instanceof Float32Array) && !Array.isArray(data)) continue;
      const m = ctm;
      const toPage = (x: number, y: number) => operators.toPage(m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]);
      if (strokes.has(paint)) strokePieces(data, draw, toPage, segments);
      else if (fills.has(paint)) filledRectangles(data, draw, toPage, fill, segments, boxes);
    }
  }
  segments.push(...visibleEdges(boxes.slice(0, MAX_BOXES)));
  return segments.slice(0, MAX_SEGMENTS);
}

type PathCodes = Codes<typeof PATH_COMMANDS>;
type ToPage = (x: number, y: number) => readonly [number, number];

/** Walks a flat path, handing over each straight run of points (a closed one ends where it began). */
function eachSubpath(data: ArrayLike<number>, draw: PathCodes, onSubpath: (points: number[]) => void): void {
  let points: number[] = [];
  const flush = () => {
    if (points.length >= 4) onSubpath(points);
    points = [];
  };
  for (let i = 0; i < data.length; ) {
    const code = data[i++];
    if (code === draw.moveTo) {
      flush();
      points.push(data[i++] as number, data[i++] as number);
    } else if (code === draw.lineTo) points.push(data[i++] as number, data[i++] as number);
    else if (code === draw.curveTo) {
      // A curve ends the straight run: not a rule.
      flush();
      i += 4;
      points.push(data[i++] as number, data[i++] as number);
    } else if (code === draw.quadraticCurveTo) {
      flush();
      i += 2;
      points.push(data[i++] as number, data[i++] as number);
    } else if (code === draw.closePath) {
      if (points.length >= 4) points.push(points[0] as number, points[1] as number);
      flush();
    } else return; // an unknown command: the rest cannot be decoded
  }
  flush();
}

function strokePieces(data: ArrayLike<number>, draw: PathCodes, toPage: ToPage, out: Segment[]): void {
  eachSubpath(data, draw, (points) => {
    for (let k = 0; k + 3 < points.length; k += 2) {
      const [x1, y1] = toPage(points[k] as number, points[k + 1] as number);
      const [x2, y2] = toPage(points[k + 2] as number, points[k + 3] as number);
      pushAxisAligned(x1, y1, x2, y2, out);
    }
  });
}

interface ShadedBox {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly colour: string;
}

/** Shaded boxes compared with each other (quadratic): past this many, the rest are ignored. */
const MAX_BOXES = 2_000;

/**
 * A filled subpath that is an axis-aligned rectangle thinner than a rule
 * becomes its centre line; a larger one in a colour other than white is
 * kept as a shaded box.
 */
function filledRectangles(data: ArrayLike<number>, draw: PathCodes, toPage: ToPage, colour: string, out: Segment[], boxes: ShadedBox[]): void {
  eachSubpath(data, draw, (points) => {
    const n = points.length / 2;
    if (n < 4 || n > 5) return;
    let left = Infinity;
    let top = Infinity;
    let right = -Infinity;
    let bottom = -Infinity;
    const corners: (readonly [number, number])[] = [];
    for (let k = 0; k < points.length; k += 2) {
      const [x, y] = toPage(points[k] as number, points[k + 1] as number);
      corners.push([x, y]);
      left = Math.min(left, x);
      right = Math.max(right, x);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
    }
    // Every corner must sit on the box: a rotated or irregular shape is not a rule.
    if (!isBoxOutline(corners, left, top, right, bottom)) return;
    const width = right - left;
    const height = bottom - top;
    if (height <= RULE_THICKNESS && width > height) out.push({ x1: left, y1: (top + bottom) / 2, x2: right, y2: (top + bottom) / 2 });
    else if (width <= RULE_THICKNESS && height > width) out.push({ x1: (left + right) / 2, y1: top, x2: (left + right) / 2, y2: bottom });
    // White boxes are left out: producers paint them under whole pages and
    // text areas, where their edges show nothing.
    else if (colour !== WHITE) boxes.push({ left, top, right, bottom, colour });
  });
}

/**
 * The edges of shaded boxes that show: an edge is a rule when cells are
 * drawn as separate fills with white gaps between them (camelot's
 * background_lines files), but not where the box lies inside another box
 * of the same colour (word processors shade a cell and then each line of
 * text in it again, in the same colour): there the colour does not change
 * across the edge, so nothing is seen.
 */
function visibleEdges(boxes: readonly ShadedBox[]): Segment[] {
  const out: Segment[] = [];
  const covered = (self: ShadedBox, x: number, y: number) =>
    boxes.some((b) => b !== self && b.colour === self.colour && x >= b.left - 0.5 && x <= b.right + 0.5 && y >= b.top - 0.5 && y <= b.bottom + 0.5);
  const shows = (self: ShadedBox, points: readonly (readonly [number, number])[]) => points.some(([x, y]) => !covered(self, x, y));
  for (const box of boxes) {
    const { left, top, right, bottom } = box;
    const xs = [0.25, 0.5, 0.75].map((f) => left + f * (right - left));
    const ys = [0.25, 0.5, 0.75].map((f) => top + f * (bottom - top));
    if (shows(box, xs.map((x) => [x, top - 1] as const))) out.push({ x1: left, y1: top, x2: right, y2: top });
    if (shows(box, xs.map((x) => [x, bottom + 1] as const))) out.push({ x1: left, y1: bottom, x2: right, y2: bottom });
    if (shows(box, ys.map((y) => [left - 1, y] as const))) out.push({ x1: left, y1: top, x2: left, y2: bottom });
    if (shows(box, ys.map((y) => [right + 1, y] as const))) out.push({ x1: right, y1: top, x2: right, y2: bottom });
  }
  return out;
}

function isBoxOutline(corners: readonly (readonly [number, number])[], left: number, top: number, right: number, bottom: number): boolean {
  for (const [x, y] of corners) {
    const onX = Math.abs(x - left) <= AXIS_TOLERANCE || Math.abs(x - right) <= AXIS_TOLERANCE;
    const onY = Math.abs(y - top) <= AXIS_TOLERANCE || Math.abs(y - bottom) <= AXIS_TOLERANCE;
    if (!onX || !onY) return false;
  }
  return true;
}

function pushAxisAligned(x1: number, y1: number, x2: number, y2: number, out: Segment[]): void {
  const dx = Math.abs(x2 - x1);
  const dy = Math.abs(y2 - y1);
  if (dx === 0 && dy === 0) return;
  if (dy <= AXIS_TOLERANCE && dx > dy) {
    const y = (y1 + y2) / 2;
    out.push({ x1: Math.min(x1, x2), y1: y, x2: Math.max(x1, x2), y2: y });
  } else if (dx <= AXIS_TOLERANCE && dy > dx) {
    const x = (x1 + x2) / 2;
    out.push({ x1: x, y1: Math.min(y1, y2), x2: x, y2: Math.max(y1, y2) });
  }
}
