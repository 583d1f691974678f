// A small load generator that keeps latency per status code, in
// microseconds: autocannon's histogram holds 2xx latencies only, in whole
// milliseconds (autocannon lib/run.js, "only recordValue 2xx latencies"),
// and the overload scenario is about how fast the 503s are. No undici in
// node_modules, so node:http with a keep-alive Agent. Bounded: fixed
// connections, fixed duration, a fixed-size sample store per status.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { RawConnection, requestHead } from './raw-http.js';
import { DEFAULT_CLIENT, type HttpClient } from './settings.js';
import { Samples, round, type Latency } from './stats.js';

export interface LoadOptions {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  /** One body for every request, or a function giving each request's (e.g. a new font subset each time). */
  readonly body?: Buffer | (() => Buffer);
  /** Each connection sends its next request when the last answer ends (a closed loop). */
  readonly connections: number;
  readonly seconds: number;
  /**
   * Paced instead of back to back: a connection starts a request at most
   * every intervalMs, as a balancer's health checker does.
   */
  readonly intervalMs?: number;
  /** The client (settings.ts HttpClient); DEFAULT_CLIENT unless given. */
  readonly client?: HttpClient;
}


export interface OpenLoadOptions extends Omit<LoadOptions, 'connections' | 'intervalMs'> {
  /** Arrivals per second, whatever the answers: an open loop, as independent clients behave. */
  readonly ratePerSecond: number;
  /** Sockets at most; an arrival finding none free waits for one (and its wait counts in its latency). */
  readonly maxSockets: number;
}

export interface StatusFigures extends Latency {
  readonly perSecond: number;
}

export interface LoadResult {
  readonly seconds: number;
  readonly total: number;
  readonly errors: number;
  readonly byStatus: Record<string, StatusFigures>;
}

/** Sends one request; resolves with the status once the last byte arrived (as autocannon counts it). */
function sender(options: Pick<LoadOptions, 'url' | 'method' | 'headers' | 'body'>, agent: Agent): () => Promise<number> {
  const url = new URL(options.url);
  const bodyOf = typeof options.body === 'function' ? options.body : () => options.body as Buffer | undefined;
  return () =>
    new Promise<number>((resolve, reject) => {
      const body = bodyOf();
      const headers = body === undefined ? options.headers : { ...options.headers, 'content-length': String(body.byteLength) };
      const req = request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: options.method, headers }, (res) => {
        res.on('data', () => undefined);
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      });
      req.once('error', reject);
      req.end(body);
    });
}

function record(byStatus: Map<number, Samples>, status: number, ms: number): void {
  let samples = byStatus.get(status);
  if (samples === undefined) byStatus.set(status, (samples = new Samples()));
  samples.add(ms);
}

/**
 * Open loop: requests start on a fixed schedule. Latency is measured from the
 * *scheduled* start, so a stalled server cannot hide its queue behind a
 * client that waits for it (coordinated omission, Gil Tene's wrk2 notes).
 */
export async function generateOpenLoad(options: OpenLoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets });
  const raw = (options.client ?? DEFAULT_CLIENT) === 'raw' ? rawPool(options, options.maxSockets) : undefined;
  const send = raw?.send ?? sender(options, agent);
  const byStatus = new Map<number, Samples>();
  let errors = 0;
  const pending = new Set<Promise<void>>();
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const intervalMs = 1000 / options.ratePerSecond;
  let launched = 0;

  const fire = (scheduled: number) => {
    const done = send().then(
      (status) => record(byStatus, status, performance.now() - scheduled),
      () => void (errors += 1),
    );
    pending.add(done);
    void done.then(() => pending.delete(done));
  };

  while (performance.now() < deadline) {
    const due = Math.floor((performance.now() - started) / intervalMs);
    while (launched < due) fire(started + launched++ * intervalMs);
    // Timers run at ~1 ms granularity; each tick launches every arrival that fell due.
    await sleep(1);
  }
  await Promise.all(pending);
  agent.destroy();
  raw?.close();
  return summarizeLoad(byStatus, errors, (performance.now() - started) / 1000);
}

/**
 * Up to `maxSockets` raw keep-alive connections (raw-http.ts) shared by an
 * open loop: an arrival takes an idle one, opens one while there are fewer
 * than `maxSockets`, or waits for one (its wait counts in its latency, as
 * with node:http's Agent).
 */
function rawPool(options: Pick<LoadOptions, 'url' | 'method' | 'headers' | 'body'>, maxSockets: number): { send: () => Promise<number>; close: () => void } {
  const url = new URL(options.url);
  const target = { host: url.hostname, port: Number(url.port), method: options.method, path: url.pathname + url.search, headers: options.headers };
  const head = requestHead(target);
  const bodyOf = typeof options.body === 'function' ? options.body : () => options.body as Buffer | undefined;
  const all: RawConnection[] = [];
  const idle: RawConnection[] = [];
  const waiting: Array<(connection: RawConnection) => void> = [];
  const acquire = (): Promise<RawConnection> => {
    const free = idle.pop();
    if (free !== undefined) return Promise.resolve(free);
    if (all.length < maxSockets) {
      const connection = new RawConnection(target);
      all.push(connection);
      return Promise.resolve(connection);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (connection: RawConnection) => {
    const next = waiting.shift();
    if (next !== undefined) next(connection);
    else idle.push(connection);
  };
  const send = async () => {
    const connection = await acquire();
    try {
      return await connection.send(head, bodyOf());
    } finally {
      release(connection);
    }
  };
  return { send, close: () => all.forEach((connection) => connection.close()) };
}

function summarizeLoad(byStatus: Map<number, Samples>, errors: number, seconds: number): LoadResult {
  const figures: Record<string, StatusFigures> = {};
  let total = 0;
  for (const [status, samples] of [...byStatus].sort(([a], [b]) => a - b)) {
    total += samples.count;
    figures[String(status)] = { ...samples.latency(), perSecond: round(samples.count / seconds, 1) };
  }
  return { seconds: round(seconds, 2), total, errors, byStatus: figures };
}

/** One request on a raw connection of its own per closed-loop connection (raw-http.ts). */
function rawSender(options: Pick<LoadOptions, 'url' | 'method' | 'headers' | 'body'>): { send: () => Promise<number>; close: () => void } {
  const url = new URL(options.url);
  const target = { host: url.hostname, port: Number(url.port), method: options.method, path: url.pathname + url.search, headers: options.headers };
  const head = requestHead(target);
  const bodyOf = typeof options.body === 'function' ? options.body : () => options.body as Buffer | undefined;
  const connection = new RawConnection(target);
  return { send: () => connection.send(head, bodyOf()), close: () => connection.close() };
}

export async function generateLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const shared = sender(options, agent);
  const raws: Array<{ close: () => void }> = [];
  const byStatus = new Map<number, Samples>();
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;

  const connection = async () => {
    let send = shared;
    if ((options.client ?? DEFAULT_CLIENT) === 'raw') {
      const raw = rawSender(options);
      raws.push(raw);
      send = raw.send;
    }
    let slot = performance.now();
    while (performance.now() < deadline) {
      if (options.intervalMs !== undefined) {
        const wait = slot - performance.now();
        if (wait > 0) await sleep(wait);
        if (performance.now() >= deadline) break;
        // A late answer moves the schedule on rather than bursting to catch up.
        slot = Math.max(slot, performance.now()) + options.intervalMs;
      }
      const sent = performance.now();
      try {
        record(byStatus, await send(), performance.now() - sent);
      } catch {
        errors += 1;
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: options.connections }, connection));
  } finally {
    agent.destroy();
    for (const raw of raws) raw.close();
  }
  return summarizeLoad(byStatus, errors, (performance.now() - started) / 1000);
}
