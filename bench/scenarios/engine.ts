// The render engine's documents (letter, letter in a custom font, 10-page
// invoice table, HTML article, Unicode in a custom font): for each, the
// server at saturation and, side by side, the same task on a bare pool with
// the same threads and in-process on one thread. Plus the two engine
// targets: the invoice at least 3x faster than pdf-lib's drawText per cell,
// and a custom-font letter within 1.5x of the standard-font one once the
// font is cached.
import { measure, type LoadFigures } from '../autocannon.js';
import { barePool } from '../baselines/pool.js';
import { inProcess } from '../baselines/in-process.js';
import { naiveTable } from '../baselines/naive-table.js';
import type { ChildServer } from '../child.js';
import { ENGINE_DOCUMENTS } from '../engine-documents.js';
import type { Settings } from '../settings.js';
import { ratio, type Throughput } from '../stats.js';
import { RENDER_HEADERS, RENDER_PATH, saturation } from './render.js';

/** Per document: shorter runs than the headline scenario, so five documents stay within the bench's budget. */
const shorter = (settings: Settings): Settings => ({ ...settings, seconds: Math.min(settings.seconds, 5), warmupSeconds: Math.min(settings.warmupSeconds, 2) });

async function checkDocument(base: string, name: string, body: Buffer): Promise<void> {
  const response = await fetch(base + RENDER_PATH, { method: 'POST', headers: RENDER_HEADERS, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200 || bytes.subarray(0, 5).toString('latin1') !== '%PDF-') {
    throw new Error(`${name}: the server did not render it: ${response.status} ${bytes.toString('utf8').slice(0, 500)}`);
  }
}

export async function engineOnServer(settings: Settings, server: ChildServer): Promise<Record<string, LoadFigures>> {
  const runs: Record<string, LoadFigures> = {};
  for (const { name, body } of ENGINE_DOCUMENTS) {
    await checkDocument(server.base, name, body);
    const s = shorter(settings);
    runs[name] = await measure({ url: server.base + RENDER_PATH, method: 'POST', headers: { ...RENDER_HEADERS }, body, connections: saturation(settings) }, s.warmupSeconds, s.seconds);
  }
  return runs;
}

export interface EngineDocumentResult {
  readonly name: string;
  readonly server: LoadFigures;
  readonly barePool: Throughput;
  readonly inProcess: Throughput;
  readonly serverToPool: number | undefined;
}

export interface EngineResult {
  readonly documents: readonly EngineDocumentResult[];
  readonly naiveTable: Throughput;
  /** Engine invoice renders/s ÷ naive drawText renders/s, both on one thread (target ≥ 3). */
  readonly tableSpeedup: number | undefined;
  /** Custom-font letter time ÷ standard letter time, one thread, font cached (target ≤ 1.5). */
  readonly customFontCost: number | undefined;
}

/** Run while the Platen server is stopped. */
export async function engineBaselines(settings: Settings, server: Record<string, LoadFigures>): Promise<EngineResult> {
  const s = shorter(settings);
  const documents: EngineDocumentResult[] = [];
  for (const { name, body } of ENGINE_DOCUMENTS) {
    const pool = await barePool(s, saturation(settings), body);
    const single = await inProcess(s, body);
    const onServer = server[name] as LoadFigures;
    documents.push({ name, server: onServer, barePool: pool, inProcess: single, serverToPool: ratio(onServer.requestsPerSecond, pool.requestsPerSecond) });
  }
  const naive = await naiveTable(s);
  const perSecond = (name: string) => documents.find((d) => d.name.startsWith(name))?.inProcess.requestsPerSecond;
  const letter = perSecond('letter');
  const custom = perSecond('letter (custom font)');
  return {
    documents,
    naiveTable: naive,
    tableSpeedup: ratio(perSecond('invoice') ?? 0, naive.requestsPerSecond),
    customFontCost: letter !== undefined && custom !== undefined ? ratio(letter, custom) : undefined,
  };
}
