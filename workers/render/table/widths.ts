// Column widths, grid line to grid line. Auto columns size from their
// content the way CSS 2.1 section 17.5.2.2 recommends: never below the
// longest unbreakable word (min-content) while the width allows, and up to
// the unwrapped text (max-content).
import type { ColumnWidth, Placed, Row } from './model.js';

const AUTO: ColumnWidth = Object.freeze({ kind: 'auto' });

/**
 * Column widths (grid line to grid line) summing to at most `available`.
 * Fixed columns get their points; auto columns their max-content if it
 * fits, else a share between min- and max-content; fraction columns split
 * what is left by weight, each kept at its min-content where possible. When
 * even the minimums do not fit, everything shrinks in proportion (long
 * words are then broken between characters).
 */
export function resolveColumnWidths(columns: readonly ColumnWidth[], count: number, available: number, rows: readonly Row[], inset: number): number[] {
  const kinds: ColumnWidth[] = [];
  for (let i = 0; i < count; i++) kinds.push(columns[i] ?? AUTO);
  const min = new Float64Array(count).fill(2 * inset);
  const max = new Float64Array(count).fill(2 * inset);
  const spanning: Placed[] = [];
  for (const row of rows) {
    for (const placed of row.cells) {
      if (placed.span > 1) {
        spanning.push(placed);
        continue;
      }
      min[placed.col] = Math.max(min[placed.col] as number, placed.measured.min + 2 * inset);
      max[placed.col] = Math.max(max[placed.col] as number, placed.measured.max + 2 * inset);
    }
  }
  for (let i = 0; i < count; i++) {
    const kind = kinds[i] as ColumnWidth;
    if (kind.kind === 'fixed') min[i] = max[i] = kind.points;
  }
  // Spanning cells, narrowest span first, widen the flexible columns they cover by what they lack.
  spanning.sort((a, b) => a.span - b.span);
  for (const placed of spanning) {
    widenForSpan(min, max, kinds, placed, placed.measured.min + 2 * inset);
    widenForSpan(max, max, kinds, placed, placed.measured.max + 2 * inset);
  }

  const widths = new Array<number>(count).fill(0);
  let fixed = 0;
  let autoMin = 0;
  let autoMax = 0;
  let fractionMin = 0;
  for (let i = 0; i < count; i++) {
    const kind = kinds[i] as ColumnWidth;
    if (kind.kind === 'fixed') fixed += kind.points;
    else if (kind.kind === 'auto') {
      autoMin += min[i] as number;
      autoMax += Math.max(min[i] as number, max[i] as number);
    } else fractionMin += min[i] as number;
  }
  const floor = fixed + autoMin + fractionMin;
  if (floor >= available) {
    const scale = floor > 0 ? available / floor : 0;
    for (let i = 0; i < count; i++) widths[i] = (min[i] as number) * scale;
    return widths;
  }

  // Auto columns: max-content when it fits beside the fraction minimums, else interpolated (CSS 2.1 17.5.2.2).
  const forAuto = available - fixed - fractionMin;
  const grow = autoMax <= forAuto ? 1 : autoMax > autoMin ? (forAuto - autoMin) / (autoMax - autoMin) : 0;
  let used = fixed;
  const flexible: number[] = [];
  const fractions: number[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i] as ColumnWidth;
    if (kind.kind === 'fixed') widths[i] = kind.points;
    else if (kind.kind === 'auto') {
      const lo = min[i] as number;
      widths[i] = lo + (Math.max(lo, max[i] as number) - lo) * grow;
      used += widths[i] as number;
      flexible.push(i);
    } else fractions.push(i);
  }
  let left = available - used;
  if (fractions.length > 0) {
    // Weights share what is left; a column whose share is below its minimum is held there and the rest re-shared.
    let pool = fractions;
    for (;;) {
      const weights = pool.reduce((sum, i) => sum + (kinds[i] as { weight: number }).weight, 0);
      const unit = left / weights;
      const held = pool.filter((i) => (kinds[i] as { weight: number }).weight * unit < (min[i] as number));
      if (held.length === 0) {
        for (const i of pool) widths[i] = (kinds[i] as { weight: number }).weight * unit;
        break;
      }
      for (const i of held) {
        widths[i] = min[i] as number;
        left -= min[i] as number;
      }
      pool = pool.filter((i) => !held.includes(i));
    }
  } else if (flexible.length > 0 && left > 0) {
    // No fractions: auto columns fill the width, in proportion to their content as CSS does for width: 100%.
    const total = flexible.reduce((sum, i) => sum + (widths[i] as number), 0);
    for (const i of flexible) widths[i] = (widths[i] as number) + (total > 0 ? (left * (widths[i] as number)) / total : left / flexible.length);
  }
  return widths;
}

function widenForSpan(target: Float64Array, weights: Float64Array, kinds: readonly ColumnWidth[], placed: Placed, need: number): void {
  let have = 0;
  let weight = 0;
  let flexible = 0;
  for (let i = placed.col; i < placed.col + placed.span; i++) {
    have += target[i] as number;
    if ((kinds[i] as ColumnWidth).kind !== 'fixed') {
      weight += weights[i] as number;
      flexible++;
    }
  }
  if (need <= have || flexible === 0) return;
  for (let i = placed.col; i < placed.col + placed.span; i++) {
    if ((kinds[i] as ColumnWidth).kind === 'fixed') continue;
    target[i] = (target[i] as number) + (need - have) * (weight > 0 ? (weights[i] as number) / weight : 1 / flexible);
  }
}
