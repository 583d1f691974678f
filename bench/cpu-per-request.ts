// CPU time per request on both sides of an interleaved comparison whose A
// side is the server, driven over HTTP by this process, and whose B side
// runs in this process (a bare pool and the loop feeding it): what each
// request cost in CPU, which the machine's load does not move the way it
// moves req/s (issue 14). Read around each round: the server process's CPU
// (/proc/<pid>/stat, every thread, ended ones too: libvips starts and ends
// its own), its main thread's, and this process's (process.cpuUsage), which
// during A rounds is the HTTP client and during B rounds is the baseline.
//
// The req/s ratio charges the server with its load generator, which shares
// the two cores and costs the bare pool's side nothing (bench:large measured
// 1.4 ms of client CPU a 2.2 MiB image request); the two CPU ratios say what
// the throughput ratio would be if CPU alone decided it, with and without
// the client's share.
import { performance } from 'node:perf_hooks';
import type { RoundHooks } from './interleave.js';
import { round, type Throughput } from './stats.js';
import { processTime, threadTimes } from './thread-cpu.js';

export interface CpuPerRequest {
  /** Requests counted on each side (req/s of each round × its length). */
  readonly serverRequests: number;
  readonly baselineRequests: number;
  /** The server process, every thread (main, Piscina workers, libuv's and libvips's, V8's), µs a request. */
  readonly serverUs: number;
  /** Of which its main thread (HTTP, pipeline, hand-off). */
  readonly serverMainUs: number;
  /** This process while it drove the server: the HTTP client, µs a request. */
  readonly clientUs: number;
  /** This process while it ran the baseline (its pool's threads and the loop feeding them), µs a request. */
  readonly baselineUs: number;
  /** baselineUs ÷ serverUs: the req/s ratio CPU allows with a client that costs nothing. */
  readonly ratioWithoutClient: number;
  /** baselineUs ÷ (serverUs + clientUs): the same with the client on the same cores, as the req/s ratio has it. */
  readonly ratioWithClient: number;
}

const ownMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** Hooks for interleave() and the per-request figures they gather. */
export class CpuAccount {
  #server = { requests: 0, processMs: 0, mainMs: 0, clientMs: 0 };
  #baseline = { requests: 0, ms: 0 };
  #mark = { at: 0, processMs: 0, mainMs: 0, ownMs: 0 };

  constructor(private readonly pid: number) {}

  readonly hooks: RoundHooks = {
    beforeA: () => {
      this.#mark = { at: performance.now(), processMs: processTime(this.pid), mainMs: this.#mainMs(), ownMs: ownMs() };
    },
    afterA: (figures: Throughput) => {
      const mark = this.#mark;
      this.#server.requests += this.#requests(figures, mark.at);
      this.#server.processMs += processTime(this.pid) - mark.processMs;
      this.#server.mainMs += this.#mainMs() - mark.mainMs;
      this.#server.clientMs += ownMs() - mark.ownMs;
    },
    beforeB: () => {
      this.#mark = { at: performance.now(), processMs: 0, mainMs: 0, ownMs: ownMs() };
    },
    afterB: (figures: Throughput) => {
      this.#baseline.requests += this.#requests(figures, this.#mark.at);
      this.#baseline.ms += ownMs() - this.#mark.ownMs;
    },
  };

  result(): CpuPerRequest {
    const s = this.#server;
    const b = this.#baseline;
    const per = (ms: number, requests: number) => (requests > 0 ? (ms * 1000) / requests : Number.NaN);
    const serverUs = per(s.processMs, s.requests);
    const clientUs = per(s.clientMs, s.requests);
    const baselineUs = per(b.ms, b.requests);
    return {
      serverRequests: Math.round(s.requests),
      baselineRequests: Math.round(b.requests),
      serverUs: Math.round(serverUs),
      serverMainUs: Math.round(per(s.mainMs, s.requests)),
      clientUs: Math.round(clientUs),
      baselineUs: Math.round(baselineUs),
      ratioWithoutClient: round(baselineUs / serverUs, 3),
      ratioWithClient: round(baselineUs / (serverUs + clientUs), 3),
    };
  }

  #mainMs(): number {
    return threadTimes(this.pid).get(this.pid) ?? Number.NaN;
  }

  /** A round's requests: its rate × its length (requests still in flight at the end count as the rate says). */
  #requests(figures: Throughput, startedAt: number): number {
    return (figures.requestsPerSecond * (performance.now() - startedAt)) / 1000;
  }
}

/** One line for the summary: the figures above, in the words the README uses. */
export function describeCpu(cpu: CpuPerRequest): string {
  return (
    `CPU a request: server ${cpu.serverUs} µs (main thread ${cpu.serverMainUs}), HTTP client ${cpu.clientUs}, baseline ${cpu.baselineUs}; ` +
    `CPU ratio ${cpu.ratioWithClient} with the client, ${cpu.ratioWithoutClient} without`
  );
}
