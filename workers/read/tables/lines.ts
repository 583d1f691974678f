// Ruling segments merged into lines: producers draw one table rule as many
// pieces (one per cell, or dashed, or stroked twice), so collinear pieces
// that touch or overlap become one line before the grid is built.
import type { Segment } from './types.js';

/** A horizontal line (`at` is its y, it runs from `from` to `to` in x) or a vertical one (`at` is x). */
export interface Line {
  readonly at: number;
  readonly from: number;
  readonly to: number;
}

export interface Rulings {
  readonly horizontal: readonly Line[];
  readonly vertical: readonly Line[];
}

/**
 * Rules this close (points) are one grid edge: a rule drawn as a 1.5 pt
 * rectangle's outline has its two long edges 1.5 pt apart.
 */
export const SNAP = 2;
/**
 * Pieces this close across their axis are one line. Tighter than SNAP: a
 * shaded title band 1.6 pt above a table's top rule is a separate thing
 * (camelot's column_span_1), and must not be averaged into the rule.
 */
const COLLINEAR = 1;
/** Pieces this close along their axis are joined: cell-by-cell rules leave hairline gaps. */
const JOIN_GAP = 1;
/** Off-axis by at most this (points) still counts as horizontal or vertical. */
const AXIS = 0.5;
/** Shorter lines are tick marks or glyph decorations, not rules. */
const MIN_LENGTH = 4;

export function mergeSegments(segments: readonly Segment[]): Rulings {
  const horizontal: Line[] = [];
  const vertical: Line[] = [];
  for (const s of segments) {
    const dx = Math.abs(s.x2 - s.x1);
    const dy = Math.abs(s.y2 - s.y1);
    if (dy <= AXIS && dx >= dy) horizontal.push({ at: (s.y1 + s.y2) / 2, from: Math.min(s.x1, s.x2), to: Math.max(s.x1, s.x2) });
    else if (dx <= AXIS) vertical.push({ at: (s.x1 + s.x2) / 2, from: Math.min(s.y1, s.y2), to: Math.max(s.y1, s.y2) });
  }
  return { horizontal: mergeCollinear(horizontal), vertical: mergeCollinear(vertical) };
}

/** Groups lines by position (within COLLINEAR of the group's first), then joins overlapping or touching runs. */
export function mergeCollinear(lines: readonly Line[]): Line[] {
  const sorted = [...lines].sort((a, b) => a.at - b.at);
  const merged: Line[] = [];
  let group: Line[] = [];
  const flush = () => {
    if (group.length > 0) merged.push(...joinRuns(group));
    group = [];
  };
  for (const line of sorted) {
    if (group.length > 0 && line.at - (group[0] as Line).at > COLLINEAR) flush();
    group.push(line);
  }
  flush();
  return merged.filter((line) => line.to - line.from >= MIN_LENGTH);
}

function joinRuns(group: readonly Line[]): Line[] {
  const at = group.reduce((sum, line) => sum + line.at, 0) / group.length;
  const byStart = [...group].sort((a, b) => a.from - b.from);
  const runs: Line[] = [];
  let from = (byStart[0] as Line).from;
  let to = (byStart[0] as Line).to;
  for (const line of byStart.slice(1)) {
    if (line.from <= to + JOIN_GAP) to = Math.max(to, line.to);
    else {
      runs.push({ at, from, to });
      from = line.from;
      to = line.to;
    }
  }
  runs.push({ at, from, to });
  return runs;
}

/**
 * Values within `tolerance` of their neighbour become one (their mean):
 * the x of every vertical rule in a table, say, becomes its column edges.
 */
export function cluster(values: readonly number[], tolerance: number): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  let sum = 0;
  let count = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const value of sorted) {
    if (count > 0 && value - last > tolerance) {
      out.push(sum / count);
      sum = 0;
      count = 0;
    }
    sum += value;
    count += 1;
    last = value;
  }
  if (count > 0) out.push(sum / count);
  return out;
}
