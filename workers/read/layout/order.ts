// Reading order of blocks: a recursive XY-cut (Nagy and Seth, 1984). In a
// region, the widest white space decides: a vertical gutter no block crosses
// splits it into columns, read left to right, each in full before the next;
// a horizontal gap no block crosses cuts it into bands, read top to bottom.
// Adjacent bands that share a gutter are merged back first, so two columns
// whose paragraph gaps happen to line up are still read column by column,
// not band by band.
import type { Box } from './lines.js';

/** Narrower free strips are the space between words of neighbouring blocks, not a gutter. */
const MIN_GUTTER = 6;
/** Bands are cut at gaps at least this tall (points). */
const MIN_BAND_GAP = 0.5;

interface Interval {
  readonly start: number;
  readonly end: number;
}

/** The boxes' indices in reading order. */
export function readingOrder(boxes: readonly Box[]): number[] {
  const order: number[] = [];
  cut(boxes.map((_, i) => i), boxes, order, 0);
  return order;
}

function cut(indices: number[], boxes: readonly Box[], order: number[], depth: number): void {
  if (indices.length <= 1 || depth > 64) {
    order.push(...sortTopLeft(indices, boxes));
    return;
  }
  const columns = splitAt(indices, boxes, 'x', MIN_GUTTER);
  const bands = splitAt(indices, boxes, 'y', MIN_BAND_GAP);
  const readColumns = () => {
    for (const column of columns) cut(column, boxes, order, depth + 1);
  };
  // The wider of the two kinds of white space decides first: a letter's
  // address block beside its date is a band above the subject line, not a
  // column holding both; columns stay columns through the merge below.
  if (columns.length > 1 && (bands.length <= 1 || widestGap(columns, boxes, 'x') >= widestGap(bands, boxes, 'y'))) {
    readColumns();
    return;
  }
  if (bands.length <= 1) {
    order.push(...sortTopLeft(indices, boxes));
    return;
  }
  const merged: number[][] = [];
  let previousGutters: Interval[] = [];
  for (const band of bands) {
    const gutters = guttersOf(band, boxes);
    const last = merged[merged.length - 1];
    if (last !== undefined && gutters.some((g) => previousGutters.some((p) => overlaps(g, p)))) {
      last.push(...band);
      previousGutters = guttersOf(last, boxes);
    } else {
      merged.push([...band]);
      previousGutters = gutters;
    }
  }
  if (merged.length === 1) {
    // Every band shares the region's gutter: columns whose gaps line up. Read them as columns.
    if (columns.length > 1) readColumns();
    else for (const band of bands) cut(band, boxes, order, depth + 1);
    return;
  }
  for (const group of merged) cut(group, boxes, order, depth + 1);
}

/** The widest free strip between consecutive groups along `axis`. */
function widestGap(groups: readonly number[][], boxes: readonly Box[], axis: 'x' | 'y'): number {
  let widest = 0;
  for (let g = 1; g < groups.length; g++) {
    const end = Math.max(...(groups[g - 1] as number[]).map((i) => (axis === 'x' ? (boxes[i] as Box).x + (boxes[i] as Box).width : (boxes[i] as Box).y + (boxes[i] as Box).height)));
    const start = Math.min(...(groups[g] as number[]).map((i) => (axis === 'x' ? (boxes[i] as Box).x : (boxes[i] as Box).y)));
    widest = Math.max(widest, start - end);
  }
  return widest;
}

/** Splits the boxes at free strips along `axis` at least `minGap` wide, in increasing order. */
function splitAt(indices: readonly number[], boxes: readonly Box[], axis: 'x' | 'y', minGap: number): number[][] {
  const start = (i: number) => (axis === 'x' ? (boxes[i] as Box).x : (boxes[i] as Box).y);
  const size = (i: number) => (axis === 'x' ? (boxes[i] as Box).width : (boxes[i] as Box).height);
  const sorted = [...indices].sort((a, b) => start(a) - start(b));
  const groups: number[][] = [];
  let current: number[] = [];
  let reach = -Infinity;
  for (const i of sorted) {
    if (current.length > 0 && start(i) - reach >= minGap) {
      groups.push(current);
      current = [];
    }
    current.push(i);
    reach = Math.max(reach, start(i) + size(i));
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** Free vertical strips inside the band's horizontal extent. */
function guttersOf(indices: readonly number[], boxes: readonly Box[]): Interval[] {
  const columns = splitAt(indices, boxes, 'x', MIN_GUTTER);
  const gutters: Interval[] = [];
  for (let c = 1; c < columns.length; c++) {
    const left = Math.max(...(columns[c - 1] as number[]).map((i) => (boxes[i] as Box).x + (boxes[i] as Box).width));
    const right = Math.min(...(columns[c] as number[]).map((i) => (boxes[i] as Box).x));
    gutters.push({ start: left, end: right });
  }
  return gutters;
}

function overlaps(a: Interval, b: Interval): boolean {
  return Math.min(a.end, b.end) - Math.max(a.start, b.start) > 0;
}

function sortTopLeft(indices: readonly number[], boxes: readonly Box[]): number[] {
  return [...indices].sort((a, b) => (boxes[a] as Box).y - (boxes[b] as Box).y || (boxes[a] as Box).x - (boxes[b] as Box).x);
}
