// Font subsetting (issue 5): POST /v1/font/subset at saturation, each
// request a different 100-code-point subset of DejaVu Sans (so no cache
// answers), beside (a) the same task on a bare Piscina pool with the same
// threads and no HTTP, the ceiling, and (b) Debian's hb-subset CLI spawned
// per request with as many in flight, what a service shelling out to the
// reference tool would do. Plus the server answering one identical request
// over and over from its cache. Every run uses the same closed-loop driver.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import type { ChildServer } from '../child.js';
import { barePool } from '../baselines/pool.js';
import { DEJAVU_SANS_PATH, SUBSET_PATH, fontRequests, rotation, type FontRequest } from '../font-requests.js';
import { warmThenLoop } from '../loop.js';
import type { Settings } from '../settings.js';
import { ratio, type Throughput } from '../stats.js';
import { RENDER_HEADERS, saturation } from './render.js';

const run = promisify(execFile);
/** The server's default PLATEN_MAX_FONT_BYTES, which also sizes the subsetter's heap. */
const MAX_FONT_BYTES = 50 * 1024 * 1024;

export interface FontSubsetServerRuns {
  /** A different subset each request. */
  readonly uncached: Throughput;
  /** One identical request, answered from the worker's cache. */
  readonly cached: Throughput;
}

export interface FontSubsetResult extends FontSubsetServerRuns {
  readonly connections: number;
  readonly codepointsPerRequest: number;
  readonly barePool: Throughput;
  /** undefined when hb-subset (Debian libharfbuzz-bin) is not installed. */
  readonly cli: Throughput | undefined;
  readonly serverToPool: number | undefined;
  readonly serverToCli: number | undefined;
}

async function post(base: string, request: FontRequest): Promise<{ status: number; json: unknown }> {
  const response = await fetch(base + SUBSET_PATH, { method: 'POST', headers: RENDER_HEADERS, body: request.body() });
  const text = await response.text();
  return { status: response.status, json: response.status === 200 ? JSON.parse(text) : text.slice(0, 500) };
}

/** Fails the bench before measuring unless the server subsets, and its cache answers a repeat. */
async function check(base: string, request: FontRequest): Promise<void> {
  const answers = [await post(base, request), await post(base, request)];
  for (const { status, json } of answers) if (status !== 200) throw new Error(`font subset check failed: ${status} ${String(json)}`);
  const glyphs = (answers[0]?.json as { data: { included_glyphs: number } }).data.included_glyphs;
  if (!(glyphs > request.codepoints.length)) throw new Error(`font subset check: ${glyphs} glyphs for ${request.codepoints.length} code points`);
}

export async function fontSubsetOnServer(settings: Settings, server: ChildServer): Promise<FontSubsetServerRuns> {
  const requests = fontRequests();
  await check(server.base, requests[0] as FontRequest);
  const connections = saturation(settings);
  const next = rotation(requests);
  const once = async (request: FontRequest) => {
    const { status, json } = await post(server.base, request);
    if (status !== 200) throw new Error(`font subset failed on the server: ${status} ${String(json)}`);
  };
  const uncached = await warmThenLoop(settings.warmupSeconds, settings.seconds, connections, () => once(next()));
  const same = requests[0] as FontRequest;
  const cached = await warmThenLoop(Math.min(settings.warmupSeconds, 1), settings.seconds, connections, () => once(same));
  return { uncached, cached };
}

/** Run while the Platen server is stopped. */
export async function fontSubsetBaselines(settings: Settings, server: FontSubsetServerRuns): Promise<FontSubsetResult> {
  const requests = fontRequests();
  const connections = saturation(settings);
  const nextRequest = rotation(requests);
  // (a) The same task and requests on a bare pool with the server's thread count.
  const pool = await barePool(settings, connections, () => nextRequest().body(), { name: 'font-subset', options: { maxFontBytes: MAX_FONT_BYTES } });
  const cli = await hbSubsetCli(settings, connections, requests);
  return {
    ...server,
    connections,
    codepointsPerRequest: requests[0]?.codepoints.length ?? 0,
    barePool: pool,
    cli,
    serverToPool: ratio(server.uncached.requestsPerSecond, pool.requestsPerSecond),
    serverToCli: cli === undefined ? undefined : ratio(server.uncached.requestsPerSecond, cli.requestsPerSecond),
  };
}

/**
 * (b) `hb-subset` spawned per request on the font file, with the server's
 * default options (hinting dropped, layout kept). It reads the font from the
 * page cache instead of decoding base64, and writes to /dev/null.
 */
async function hbSubsetCli(settings: Settings, inFlight: number, requests: readonly FontRequest[]): Promise<Throughput | undefined> {
  if (spawnSync('hb-subset', ['--version']).error !== undefined) return undefined;
  const next = rotation(requests);
  const task = async () => {
    const unicodes = next()
      .codepoints.map((cp) => cp.toString(16))
      .join(',');
    await run('hb-subset', [DEJAVU_SANS_PATH, `--unicodes=${unicodes}`, '--no-hinting', '--output-file=/dev/null']);
  };
  return warmThenLoop(settings.warmupSeconds, settings.seconds, inFlight, task);
}
