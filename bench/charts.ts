// SVG charts beside summary.md, drawn by vega-lite compiled to vega and
// rendered headless by vega's own SVG renderer (no browser, no canvas):
// each interleaved comparison's median ratio with its range, the p99 of
// both sides, and the scaling curves (ms per page and peak memory by page
// count). Written as ratios.svg, p99.svg, scaling-time.svg, scaling-memory.svg.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { PairsResult } from './pairs.js';
import type { ScalingResult } from './scaling.js';

async function svg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}

const WIDTH = 520;

/** One figure of the scaling points against the page count (log scale), a line per kind of document. */
function scalingChart(scaling: ScalingResult, title: string, field: 'msPerPage' | 'peakRssMiB', axisTitle: string): TopLevelSpec {
  return {
    title,
    width: WIDTH,
    data: { values: scaling.points },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'pages', type: 'quantitative', scale: { type: 'log' } },
      y: { field, type: 'quantitative', title: axisTitle },
      color: { field: 'kind', type: 'nominal' },
    },
  };
}

export async function writeCharts(dir: string, pairs: PairsResult, scaling: ScalingResult): Promise<string[]> {
  const ratios = pairs.comparisons.map(({ ratio: c }) => ({ comparison: c.name, median: c.median, min: c.min, max: c.max, noisy: c.noisy ? 'range wider than ±10%' : 'within ±10%' }));
  const p99 = pairs.comparisons.flatMap(({ ratio: c }) => [
    { comparison: c.name, side: `A (${c.a})`, p99: c.aMedian.p99Ms },
    { comparison: c.name, side: `B (${c.b})`, p99: c.bMedian.p99Ms },
  ]);
  const charts: Record<string, TopLevelSpec> = {
    'ratios.svg': {
      title: 'A ÷ B throughput: median of interleaved rounds, range min-max',
      width: WIDTH,
      data: { values: ratios },
      layer: [
        { mark: 'rule', encoding: { y: { field: 'comparison', type: 'nominal', sort: null, title: null }, x: { field: 'min', type: 'quantitative', scale: { type: 'log' }, title: 'ratio (log)' }, x2: { field: 'max' } } },
        { mark: { type: 'point', filled: true, size: 60 }, encoding: { y: { field: 'comparison', type: 'nominal', sort: null }, x: { field: 'median', type: 'quantitative' }, color: { field: 'noisy', type: 'nominal', title: 'spread' } } },
        { data: { values: [{ one: 1 }] }, mark: { type: 'rule', strokeDash: [4, 4] }, encoding: { x: { field: 'one', type: 'quantitative' } } },
      ],
    },
    'p99.svg': {
      title: 'p99 latency (ms, median of rounds), A against B',
      width: WIDTH,
      data: { values: p99 },
      mark: 'bar',
      encoding: {
        y: { field: 'comparison', type: 'nominal', sort: null, title: null },
        yOffset: { field: 'side', type: 'nominal' },
        x: { field: 'p99', type: 'quantitative', scale: { type: 'symlog' }, title: 'p99 ms (symlog)' },
        color: { field: 'side', type: 'nominal', legend: null },
        tooltip: [{ field: 'side' }, { field: 'p99' }],
      },
    },
    'scaling-time.svg': scalingChart(scaling, 'ms per page by page count (flat = linear cost)', 'msPerPage', 'ms per page'),
    'scaling-memory.svg': scalingChart(scaling, 'peak resident memory by page count', 'peakRssMiB', 'peak RSS MiB'),
  };
  const written: string[] = [];
  for (const [name, spec] of Object.entries(charts)) {
    writeFileSync(join(dir, name), await svg(spec));
    written.push(name);
  }
  return written;
}
