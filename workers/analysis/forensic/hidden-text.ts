// Text a person does not see but a program extracting text reads: the way
// prompt injections and keyword stuffing hide in documents. From the
// reader's text items (position, size, fill colour, render mode) and one
// walk over the page's operator list for what is painted around them
// (filled paths and images, in drawing order, with the CTM and fill alpha):
// - invisible: text render mode 3 (ISO 32000-1 9.3.6), unless it lies over
//   an image, which is how OCR layers are made (reported apart, as normal);
// - background-colour: the fill colour equals (within a small distance) the
//   colour of the last opaque shape painted under it, or the page's white;
// - outside-crop-box: entirely outside the page as displayed (pdf.js's text
//   content leaves such text out, so the operator walk places it itself
//   from the text matrix, font size and glyph widths);
// - tiny: drawn under 1 pt;
// - covered: an opaque shape or image painted later hides the whole run.
// Text items and operators follow the content stream's order; the items'
// characters are lined up with the glyphs each showText paints (as
// read/text-styles.ts does for colours) to know what was painted before.
// Clipping paths and soft masks are not followed: text clipped away is not
// reported, a shape under a soft mask counts as opaque.
import { compact } from '../../read/text-styles.js';
import { IDENTITY, isMatrix, multiply, type Matrix } from '../../read/matrix.js';
import type { Operators, PageSize, TextItem } from '../../read/types.js';

export type HiddenKind = 'invisible' | 'background-colour' | 'outside-crop-box' | 'tiny' | 'covered';

export interface HiddenRun {
  readonly kind: HiddenKind;
  readonly text: string;
}

export interface PageHidden {
  readonly runs: readonly HiddenRun[];
  /** Characters of invisible text lying over images: an OCR layer. */
  readonly ocrCharacters: number;
}

interface Painted {
  /** Glyph characters painted before it. */
  readonly at: number;
  readonly box: Box;
  /** "#rrggbb"; null for an image. */
  readonly color: string | null;
  readonly opaque: boolean;
}

interface Box {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

/** Colours closer than this (Euclidean, 0-255 per channel) read as the same to a person: white on #fefefe. */
const SAME_COLOUR = 24;
/** Points: a shape must overlap the text box by this margin to count as covering it. */
const EDGE = 0.5;
const TINY = 1;
/** Painted shapes kept per page at most (a page of vector art): later ones are not compared. */
const MAX_PAINTED = 20_000;
/** Subpaths of one path compared for holes at most (a path of vector art with more is taken as solid pieces). */
const MAX_NESTING_CHECK = 500;
/** Characters a text item may start past where the previous one ended (runs pdf.js left out in between). */
const RESYNC_WINDOW = 4096;
const WHITE = '#ffffff';

const FILLS = ['fill', 'eoFill', 'fillStroke', 'eoFillStroke', 'closeFillStroke', 'closeEOFillStroke'] as const;

export function hiddenOnPage(items: readonly TextItem[], operators: Operators, size: PageSize): PageHidden {
  const { painted, textBoxes, characters } = paintedShapes(operators);
  const runs: HiddenRun[] = [];
  for (const drawn of textBoxes) {
    const { box } = drawn;
    if (drawn.text.trim() !== '' && (box.right <= 0 || box.left >= size.width || box.bottom <= 0 || box.top >= size.height)) runs.push({ kind: 'outside-crop-box', text: drawn.text });
  }
  let ocrCharacters = 0;
  let cursor = 0;
  for (const item of items) {
    // Where the item's glyphs are among all painted: pdf.js leaves some runs
    // out of its text content (off the page), so counting would drift.
    const wanted = compact(item.text);
    const found = wanted === '' ? -1 : characters.indexOf(wanted, cursor);
    const start = found >= 0 && found - cursor <= RESYNC_WINDOW ? found : cursor;
    const offset = start + wanted.length;
    cursor = offset;
    if (item.text.trim() === '') continue;
    const box: Box = { left: item.x, top: item.y, right: item.x + Math.max(item.width, 0.1), bottom: item.y + Math.max(item.height, 0.1) };
    const centre = { x: (box.left + box.right) / 2, y: (box.top + box.bottom) / 2 };
    const under = lastUnder(painted, start, centre);
    let kind: HiddenKind | undefined;
    if (item.invisible) {
      if (under !== undefined && under.color === null) {
        ocrCharacters += item.text.length;
        continue;
      }
      kind = 'invisible';
    } else if (box.right <= 0 || box.left >= size.width || box.bottom <= 0 || box.top >= size.height) continue; // reported from the operator walk
    else if (item.fontSize < TINY) kind = 'tiny';
    else if (sameColour(item.color, under === undefined ? WHITE : under.color)) kind = 'background-colour';
    else if (painted.some((shape) => shape.at >= offset && shape.opaque && covers(shape.box, box))) kind = 'covered';
    if (kind !== undefined) runs.push({ kind, text: item.text });
  }
  return { runs, ocrCharacters };
}

/** The last opaque thing painted before `at` under the point: its colour is the text's background. */
function lastUnder(painted: readonly Painted[], at: number, point: { x: number; y: number }): Painted | undefined {
  for (let i = painted.length - 1; i >= 0; i--) {
    const shape = painted[i] as Painted;
    if (shape.at > at || !shape.opaque) continue;
    if (point.x >= shape.box.left && point.x <= shape.box.right && point.y >= shape.box.top && point.y <= shape.box.bottom) return shape;
  }
  return undefined;
}

function covers(outer: Box, inner: Box): boolean {
  return outer.left <= inner.left + EDGE && outer.right >= inner.right - EDGE && outer.top <= inner.top + EDGE && outer.bottom >= inner.bottom - EDGE;
}

function sameColour(a: string, b: string | null): boolean {
  if (b === null) return false;
  const [ar, ag, ab] = rgb(a);
  const [br, bg, bb] = rgb(b);
  return Math.hypot(ar - br, ag - bg, ab - bb) < SAME_COLOUR;
}

function rgb(hex: string): [number, number, number] {
  const value = /^#[0-9a-f]{6}$/i.test(hex) ? Number.parseInt(hex.slice(1), 16) : 0;
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/**
 * Filled paths and images in painting order, in page coordinates, each with
 * the number of glyph characters painted before it; and the box of every
 * showText, placed from the text state (9.4.2: Tm, Tlm, TL, Tf size; glyph
 * widths and TJ adjustments advance it; Tz, Tc, Tw, rise are left out, so
 * the box is approximate).
 */
function paintedShapes(operators: Operators): { painted: Painted[]; textBoxes: { box: Box; text: string }[]; characters: string } {
  const { fnArray, argsArray, ops, drawOps } = operators;
  const fills = new Set(FILLS.map((name) => ops[name]));
  const images = new Set([ops.paintImageXObject, ops.paintInlineImageXObject, ops.paintImageXObjectRepeat, ops.paintImageMaskXObject]);
  const painted: Painted[] = [];
  const stack: { ctm: Matrix; fill: string; alpha: number }[] = [];
  let ctm: Matrix = IDENTITY;
  let fill = '#000000';
  let alpha = 1;
  let characters = 0;
  const glyphs: string[] = [];
  const textBoxes: { box: Box; text: string }[] = [];
  let tm: Matrix = IDENTITY;
  let tlm: Matrix = IDENTITY;
  let fontSize = 0;
  let leading = 0;
  const newLine = (tx: number, ty: number) => {
    tlm = multiply([1, 0, 0, 1, tx, ty], tlm);
    tm = tlm;
  };
  for (let i = 0; i < fnArray.length && painted.length < MAX_PAINTED; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push({ ctm, fill, alpha });
    else if (fn === ops.restore || fn === ops.paintFormXObjectEnd) ({ ctm, fill, alpha } = stack.pop() ?? { ctm: IDENTITY, fill: '#000000', alpha: 1 });
    else if (fn === ops.transform && args && args.length === 6) ctm = multiply(args as unknown as Matrix, ctm);
    else if (fn === ops.paintFormXObjectBegin) {
      stack.push({ ctm, fill, alpha });
      if (args && isMatrix(args[0])) ctm = multiply(args[0], ctm);
    } else if (fn === ops.setFillRGBColor) fill = typeof args?.[0] === 'string' ? args[0].toLowerCase() : '#000000';
    else if (fn === ops.setGState && Array.isArray(args?.[0])) {
      for (const pair of args[0] as unknown[]) if (Array.isArray(pair) && pair[0] === 'ca' && typeof pair[1] === 'number') alpha = pair[1];
    } else if (fn === ops.beginText) tm = tlm = IDENTITY;
    else if (fn === ops.setTextMatrix && args) {
      const m = isMatrix(args) ? args : args[0];
      if (isMatrix(m)) tm = tlm = Array.from(m as ArrayLike<number>) as unknown as Matrix;
    } else if ((fn === ops.moveText || fn === ops.setLeadingMoveText) && typeof args?.[0] === 'number' && typeof args[1] === 'number') {
      if (fn === ops.setLeadingMoveText) leading = -args[1];
      newLine(args[0], args[1]);
    } else if (fn === ops.nextLine) newLine(0, -leading);
    else if (fn === ops.setLeading && typeof args?.[0] === 'number') leading = args[0];
    else if (fn === ops.setFont && typeof args?.[1] === 'number') fontSize = args[1];
    else if (fn === ops.showText && Array.isArray(args?.[0])) {
      let text = '';
      let advance = 0;
      for (const glyph of args[0] as unknown[]) {
        if (typeof glyph === 'number') {
          advance -= (glyph * fontSize) / 1000;
          continue;
        }
        const { unicode, width } = (glyph ?? {}) as { unicode?: unknown; width?: unknown };
        if (typeof unicode === 'string') {
          const chars = compact(unicode);
          characters += chars.length;
          glyphs.push(chars);
          text += unicode;
        }
        if (typeof width === 'number' && Number.isFinite(width)) advance += (width * fontSize) / 1000;
      }
      const m = multiply(tm, ctm);
      textBoxes.push({ box: boxOf([[0, 0], [advance, 0], [0, fontSize], [advance, fontSize]], m, operators), text });
      tm = multiply([1, 0, 0, 1, advance, 0], tm);
    } else if (fn === ops.constructPath && args && fills.has(args[0] as number)) {
      const data = (args[1] as unknown[] | undefined)?.[0];
      if (!(data instanceof Float32Array) && !Array.isArray(data)) continue;
      // Each subpath is its own shape: one path often holds a table's many thin rules, whose union box would cover the whole table.
      for (const box of subpathBoxes(data as ArrayLike<number>, drawOps, ctm, operators)) painted.push({ at: characters, box, color: fill, opaque: alpha >= 0.99 });
    } else if (images.has(fn as number)) {
      // An image fills the unit square of its CTM (8.9.4).
      painted.push({ at: characters, box: boxOf([[0, 0], [1, 0], [0, 1], [1, 1]], ctm, operators), color: null, opaque: alpha >= 0.99 && fn !== ops.paintImageMaskXObject });
    }
  }
  return { painted, textBoxes, characters: glyphs.join('') };
}

function subpathBoxes(data: ArrayLike<number>, draw: Readonly<Record<string, number>>, ctm: Matrix, operators: Operators): Box[] {
  const boxes: Box[] = [];
  let points: [number, number][] = [];
  const flush = () => {
    if (points.length >= 3) boxes.push(boxOf(points, ctm, operators));
    points = [];
  };
  for (let i = 0; i < data.length; ) {
    const code = data[i++];
    if (code === draw.moveTo) flush();
    const count = code === draw.moveTo || code === draw.lineTo ? 2 : code === draw.curveTo ? 6 : code === draw.quadraticCurveTo ? 4 : 0;
    for (let k = 0; k + 1 < count; k += 2) points.push([data[i + k] as number, data[i + k + 1] as number]);
    i += count;
  }
  flush();
  if (boxes.length < 2 || boxes.length > MAX_NESTING_CHECK) return boxes;
  // A subpath inside another of the same path is a hole (a frame, a rounded
  // border drawn as two outlines: 8.5.3.3's winding rules): neither paints
  // the area inside the inner one, so both are left out.
  const nested = new Set<number>();
  for (let i = 0; i < boxes.length; i++) {
    for (let j = 0; j < boxes.length; j++) {
      if (i !== j && contains(boxes[i] as Box, boxes[j] as Box)) nested.add(i).add(j);
    }
  }
  return boxes.filter((_, i) => !nested.has(i));
}

function contains(outer: Box, inner: Box): boolean {
  return outer.left <= inner.left && outer.right >= inner.right && outer.top <= inner.top && outer.bottom >= inner.bottom;
}

function boxOf(points: readonly (readonly [number, number])[], m: Matrix, operators: Operators): Box {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const [x, y] of points) {
    const [px, py] = operators.toPage(m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]);
    left = Math.min(left, px);
    right = Math.max(right, px);
    top = Math.min(top, py);
    bottom = Math.max(bottom, py);
  }
  return { left, top, right, bottom };
}
