// Scenario 3: renders arriving at four times the rate the server sustains at
// saturation (scenario 2), as an open loop: independent clients keep
// arriving whatever the answers. The excess must be refused at once with 503
// worker-pool-exhausted, and the admitted renders must not get slower than
// at plain saturation beyond the queue's bounded wait. Per-status latency
// needs our own load generator (bench/loadgen.ts). The server's own time for
// a 503 (its completion line's `ms`, from the handler's start to the
// response written) is read from its log: the client-side figure also holds
// the wait for the server's event loop to pick the request up.
// The saturation it is read against is measured right before it, by the
// same load generator: read against scenario 2's autocannon run minutes
// earlier, the last full run reported 1.31 (32.8 ms ÷ 25 ms at 446 req/s)
// while the render rounds between them saw 922-1065 req/s at p99 10-15 ms,
// i.e. 2.2-3.3, as the interleaved rounds did (3.93, 2.69-6.72).
import type { ChildServer } from '../child.js';
import { LETTER_JSON } from '../documents.js';
import { generateLoad, generateOpenLoad, type LoadResult, type StatusFigures } from '../loadgen.js';
import type { Settings } from '../settings.js';
import { Samples, round, type Latency } from '../stats.js';
import { RENDER_HEADERS, RENDER_PATH, saturation } from './render.js';

export interface OverloadResult {
  /** Sockets the generator may open. */
  readonly connections: number;
  /** The renders at saturation just before (closed loop, the same client): the rate and p99 the overload is read against. */
  readonly saturation: StatusFigures;
  /** Arrivals per second: OVERLOAD_FACTOR × the render rate at saturation. */
  readonly ratePerSecond: number;
  /** threads + maxQueue: the most requests the server holds at once. */
  readonly capacity: number;
  /** Share of all answers that were 503. */
  readonly rejectedShare: number;
  readonly rejected: StatusFigures | undefined;
  readonly admitted: StatusFigures | undefined;
  /** From the server's log (5xx lines are written at error, so at any level but fatal/silent). */
  readonly rejectedServerSide: Latency | undefined;
  readonly raw: LoadResult;
}

export const OVERLOAD_FACTOR = 4;

/** Enough sockets that arrivals never wait for one while the server answers within ~100 ms. */
const MAX_SOCKETS = 256;

export async function overloadScenario(settings: Settings, server: ChildServer): Promise<OverloadResult> {
  const saturated = (
    await generateLoad({ url: server.base + RENDER_PATH, method: 'POST', headers: { ...RENDER_HEADERS }, body: LETTER_JSON, connections: saturation(settings), seconds: settings.seconds })
  ).byStatus['200'];
  if (saturated === undefined) throw new Error('overload: no render succeeded at saturation');
  const ratePerSecond = Math.round(OVERLOAD_FACTOR * saturated.perSecond);
  const load = (seconds: number) =>
    generateOpenLoad({
      url: server.base + RENDER_PATH,
      method: 'POST',
      headers: { ...RENDER_HEADERS },
      body: LETTER_JSON,
      ratePerSecond,
      maxSockets: MAX_SOCKETS,
      seconds,
    });
  await load(settings.warmupSeconds);
  const logFrom = server.outputBytes();
  const raw = await load(settings.seconds);
  const rejected = raw.byStatus['503'];
  return {
    connections: MAX_SOCKETS,
    saturation: saturated,
    ratePerSecond,
    capacity: settings.workers + settings.maxQueue,
    rejectedShare: raw.total > 0 ? round((rejected?.count ?? 0) / raw.total, 4) : 0,
    rejected,
    admitted: raw.byStatus['200'],
    rejectedServerSide: serverSideLatency(server.output(logFrom), 503),
    raw,
  };
}

function serverSideLatency(log: string, status: number): Latency | undefined {
  const samples = new Samples();
  for (const line of log.split('\n')) {
    if (!line.includes(`"status":${status}`)) continue;
    try {
      const entry = JSON.parse(line) as { route?: unknown; ms?: unknown };
      if (entry.route === RENDER_PATH && typeof entry.ms === 'number') samples.add(entry.ms);
    } catch {
      // A line cut off at the end of the file.
    }
  }
  return samples.count > 0 ? samples.latency() : undefined;
}
