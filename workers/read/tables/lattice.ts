// "Lattice" tables: tables drawn with ruling lines (camelot's lattice idea,
// on vector lines instead of a rendered image). Lines that cross form
// groups; each group with at least two rules each way is a table whose
// grid is the set of distinct rule positions; neighbouring grid cells with
// no rule between them are one spanning cell.
import { centreX, centreY, textOf } from './cell-text.js';
import { SNAP, cluster, type Line, type Rulings } from './lines.js';
import type { Table, TableCell, Word } from './types.js';

/** How far (points) a line may fall short of another and still be taken to meet it. */
const REACH = 1.5;
/** A grid row or column thinner than this is the double stroke of one rule, not a row. */
const MIN_TRACK = 3;

export function latticeTables(rulings: Rulings, words: readonly Word[]): Table[] {
  const tables: Table[] = [];
  for (const group of crossingGroups(rulings)) {
    const table = gridTable(group, words);
    if (table) tables.push(table);
  }
  return tables.sort((a, b) => a.y - b.y || a.x - b.x);
}

function meets(h: Line, v: Line): boolean {
  return v.at >= h.from - REACH && v.at <= h.to + REACH && h.at >= v.from - REACH && h.at <= v.to + REACH;
}

/** Connected groups of crossing lines (union-find over horizontal × vertical pairs). */
function crossingGroups(rulings: Rulings): Rulings[] {
  const { horizontal, vertical } = rulings;
  const parent = Array.from({ length: horizontal.length + vertical.length }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i] as number] as number;
      i = parent[i] as number;
    }
    return i;
  };
  // Horizontals sorted by y, so each vertical only looks at the ones within its span.
  const order = horizontal.map((h, i) => ({ h, i })).sort((a, b) => a.h.at - b.h.at);
  vertical.forEach((v, j) => {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((order[mid] as { h: Line }).h.at < v.from - REACH) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < order.length && (order[k] as { h: Line }).h.at <= v.to + REACH; k++) {
      const { h, i } = order[k] as { h: Line; i: number };
      if (meets(h, v)) parent[find(i)] = find(horizontal.length + j);
    }
  });
  const groups = new Map<number, { horizontal: Line[]; vertical: Line[] }>();
  const groupOf = (i: number) => {
    const root = find(i);
    let group = groups.get(root);
    if (!group) groups.set(root, (group = { horizontal: [], vertical: [] }));
    return group;
  };
  horizontal.forEach((h, i) => groupOf(i).horizontal.push(h));
  vertical.forEach((v, j) => groupOf(horizontal.length + j).vertical.push(v));
  return [...groups.values()].filter((g) => g.horizontal.length >= 2 && g.vertical.length >= 2);
}

/** Grid edges: distinct rule positions, plus the group's outer extent (a table open at its sides). */
function edges(positions: number[], from: number, to: number): number[] {
  const all = cluster([...positions, from, to], SNAP).filter((e) => e >= from - SNAP && e <= to + SNAP);
  const out: number[] = [];
  for (const e of all) if (out.length === 0 || e - (out[out.length - 1] as number) >= MIN_TRACK) out.push(e);
  return out;
}

/** Whether some line at `at` covers the middle of [from, to]. */
function ruled(lines: readonly Line[], at: number, from: number, to: number): boolean {
  const middle = (from + to) / 2;
  return lines.some((l) => Math.abs(l.at - at) <= SNAP && l.from - REACH <= middle && l.to + REACH >= middle);
}

function gridTable(group: Rulings, words: readonly Word[]): Table | null {
  const left = Math.min(...group.horizontal.map((h) => h.from));
  const right = Math.max(...group.horizontal.map((h) => h.to));
  const top = Math.min(...group.vertical.map((v) => v.from));
  const bottom = Math.max(...group.vertical.map((v) => v.to));
  const xs = edges(group.vertical.map((v) => v.at), left, right);
  const ys = edges(group.horizontal.map((h) => h.at), top, bottom);
  const rows = ys.length - 1;
  const columns = xs.length - 1;
  if (rows < 1 || columns < 1 || rows * columns < 2) return null;

  // Spanning cells: from each grid position not yet taken, grow right while
  // no rule separates the neighbour, then down while the whole row below is
  // free of rules; a span is always a rectangle, as a cell must be.
  const vRule = (edge: number, r: number) => ruled(group.vertical, xs[edge] as number, ys[r] as number, ys[r + 1] as number);
  const hRule = (edge: number, c: number) => ruled(group.horizontal, ys[edge] as number, xs[c] as number, xs[c + 1] as number);
  const owner = new Int32Array(rows * columns).fill(-1);
  const spans: { row: number; column: number; rowSpan: number; columnSpan: number }[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      if ((owner[r * columns + c] as number) >= 0) continue;
      let c2 = c;
      while (c2 + 1 < columns && (owner[r * columns + c2 + 1] as number) < 0 && !vRule(c2 + 1, r)) c2++;
      let r2 = r;
      const rowBelowJoins = (below: number) => {
        for (let k = c; k <= c2; k++) if ((owner[below * columns + k] as number) >= 0 || hRule(below, k)) return false;
        for (let k = c; k < c2; k++) if (vRule(k + 1, below)) return false;
        return true;
      };
      while (r2 + 1 < rows && rowBelowJoins(r2 + 1)) r2++;
      for (let i = r; i <= r2; i++) for (let k = c; k <= c2; k++) owner[i * columns + k] = spans.length;
      spans.push({ row: r, column: c, rowSpan: r2 - r + 1, columnSpan: c2 - c + 1 });
    }
  }
  // A frame around one box (a bordered paragraph, a page border) is not a table.
  if (spans.length < 2) return null;
  const texts: Word[][] = spans.map(() => []);
  const x0 = xs[0] as number;
  const y0 = ys[0] as number;
  const x1 = xs[columns] as number;
  const y1 = ys[rows] as number;
  for (const word of words) {
    const cx = centreX(word);
    const cy = centreY(word);
    if (cx < x0 || cx > x1 || cy < y0 || cy > y1) continue;
    const c = Math.min(columns - 1, Math.max(0, upperIndex(xs, cx) - 1));
    const r = Math.min(rows - 1, Math.max(0, upperIndex(ys, cy) - 1));
    texts[owner[r * columns + c] as number]?.push(word);
  }
  const cells: TableCell[] = spans.map((span, i) => ({
    row: span.row,
    column: span.column,
    row_span: span.rowSpan,
    column_span: span.columnSpan,
    text: textOf(texts[i] as Word[]),
  }));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rows, columns, method: 'lattice', cells };
}

/** The index of the first edge greater than `value` (edges sorted ascending). */
function upperIndex(edges: readonly number[], value: number): number {
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((edges[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
