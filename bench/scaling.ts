// How cost grows (issue 14): render time and peak memory of the letter
// repeated and of the invoice table continued, at 1, 10, 100 and 1,000
// pages, and the same for linearizing the letter. Each point runs in a
// fresh process (scaling-point.ts), so its peak resident set is its own.
// The cost per page should stay flat; the summary gives ms per page at each
// size and the 1,000-page cost per page against the 10-page one.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ScalingKind } from './scaling-point.js';
import { round } from './stats.js';

const run = promisify(execFile);
const POINT = fileURLToPath(new URL('./scaling-point.js', import.meta.url));

export const SCALING_PAGES = [1, 10, 100, 1000] as const;
export const SCALING_KINDS: readonly ScalingKind[] = ['letter', 'invoice', 'linearize'];

export interface ScalingPoint {
  readonly kind: ScalingKind;
  readonly pages: number;
  readonly ms: number;
  readonly msPerPage: number;
  readonly peakRssMiB: number;
  /** Peak resident set above the warmed-up process's. */
  readonly growthMiB: number;
}

export interface ScalingResult {
  readonly points: readonly ScalingPoint[];
  /** Per kind: ms per page at 1,000 pages ÷ at 10 pages (1 = linear). */
  readonly flatness: Readonly<Record<string, number>>;
}

export async function scalingScenario(step: (text: string) => void, pages: readonly number[] = SCALING_PAGES): Promise<ScalingResult> {
  const points: ScalingPoint[] = [];
  for (const kind of SCALING_KINDS) {
    for (const n of pages) {
      const { stdout } = await run(process.execPath, [POINT, kind, String(n)], { maxBuffer: 1 << 20 });
      const figures = JSON.parse(stdout) as { ms: number; peakRssMiB: number; baseRssMiB: number };
      points.push({ kind, pages: n, ms: figures.ms, msPerPage: round(figures.ms / n, 2), peakRssMiB: figures.peakRssMiB, growthMiB: round(Math.max(0, figures.peakRssMiB - figures.baseRssMiB), 1) });
      step(`  ${kind}, ${n} pages: ${figures.ms} ms, peak RSS ${figures.peakRssMiB} MiB`);
    }
  }
  const flatness: Record<string, number> = {};
  for (const kind of SCALING_KINDS) {
    const small = points.find((p) => p.kind === kind && p.pages === 10);
    const large = points.find((p) => p.kind === kind && p.pages === Math.max(...pages));
    if (small !== undefined && large !== undefined && small.msPerPage > 0) flatness[kind] = round(large.msPerPage / small.msPerPage, 2);
  }
  return { points, flatness };
}
