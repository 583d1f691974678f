// Scenario 2: POST /api/v1/render of the one-page letter at saturation, and
// the three baselines run side by side with the same document and the same
// number of requests in flight.
import { measure, type LoadFigures, type Target } from '../autocannon.js';
import { barePool } from '../baselines/pool.js';
import { inProcess } from '../baselines/in-process.js';
import { naiveHttp } from '../baselines/naive-http.js';
import type { ChildServer } from '../child.js';
import { BENCH_KEY, LETTER, LETTER_JSON } from '../documents.js';
import type { Settings } from '../settings.js';
import { ratio, type Throughput } from '../stats.js';

export const RENDER_PATH = '/api/v1/render';

export const RENDER_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  authorization: `Bearer ${BENCH_KEY}`,
};

/**
 * Two requests per thread: one running, one waiting, so a thread never idles
 * between completions; far below threads + maxQueue, so nothing is refused.
 */
export function saturation(settings: Settings): number {
  return settings.workers * 2;
}

export function renderTarget(base: string, connections: number): Target {
  return { url: base + RENDER_PATH, method: 'POST', headers: { ...RENDER_HEADERS }, body: LETTER_JSON, connections };
}

/** Fails the bench before measuring if the server does not render the letter. */
export async function checkRender(base: string): Promise<void> {
  const response = await fetch(base + RENDER_PATH, { method: 'POST', headers: RENDER_HEADERS, body: LETTER_JSON });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const magic = Buffer.from(bytes.subarray(0, 5)).toString('latin1');
  if (response.status !== 200 || magic !== '%PDF-') {
    throw new Error(`render check failed: ${response.status} ${response.headers.get('content-type')}: ${Buffer.from(bytes).toString('utf8').slice(0, 500)}`);
  }
}

export async function renderOnServer(settings: Settings, server: ChildServer): Promise<LoadFigures> {
  await checkRender(server.base);
  return measure(renderTarget(server.base, saturation(settings)), settings.warmupSeconds, settings.seconds);
}

export interface RenderBaselines {
  /** (a) The same render through a bare Piscina pool, no HTTP: the ceiling. */
  readonly barePool: Throughput;
  /** (b) The render called in a loop on one thread. */
  readonly inProcess: Throughput;
  /** (c) A plain node:http server rendering on its main thread. */
  readonly naiveHttp: LoadFigures;
}

/** Run while the Platen server is stopped, so that its idle process is not even in the picture. */
export async function renderBaselines(settings: Settings): Promise<RenderBaselines> {
  const connections = saturation(settings);
  const pool = await barePool(settings, connections, LETTER_JSON);
  const single = await inProcess(settings, LETTER_JSON);
  const naive = await naiveHttp(settings, (base) => renderTarget(base, connections));
  return { barePool: pool, inProcess: single, naiveHttp: naive };
}

export interface RenderRatios {
  readonly serverToBarePool: number | undefined;
  readonly serverToInProcess: number | undefined;
  readonly serverToNaiveHttp: number | undefined;
}

export function renderRatios(server: Throughput, baselines: RenderBaselines): RenderRatios {
  return {
    serverToBarePool: ratio(server.requestsPerSecond, baselines.barePool.requestsPerSecond),
    serverToInProcess: ratio(server.requestsPerSecond, baselines.inProcess.requestsPerSecond),
    serverToNaiveHttp: ratio(server.requestsPerSecond, baselines.naiveHttp.requestsPerSecond),
  };
}

/** The letter repeated on `pages` pages, rendered by the running server: the input of the PDF-reading and document benches. */
export async function renderPages(base: string, pages: number): Promise<Buffer> {
  const operations = Array.from({ length: pages }, (_, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), ...LETTER.operations]).flat();
  const response = await fetch(base + RENDER_PATH, { method: 'POST', headers: RENDER_HEADERS, body: JSON.stringify({ ...LETTER, operations }) });
  const pdf = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`rendering the input failed: ${response.status}`);
  return pdf;
}
