// What the figures were measured on: they mean little without it.
import { cpus, freemem, platform, release, totalmem } from 'node:os';
import type { Settings } from './settings.js';

export interface RunInfo {
  readonly timestamp: string;
  readonly machine: {
    readonly cpu: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly freeMemoryGiB: number;
    readonly os: string;
  };
  readonly node: string;
  readonly workers: number;
  readonly maxQueue: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly quick: boolean;
  readonly serverLogLevel: string;
}

export function runInfo(settings: Settings): RunInfo {
  const gib = (bytes: number) => Math.round((bytes / 2 ** 30) * 10) / 10;
  return {
    timestamp: new Date().toISOString(),
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: gib(totalmem()),
      freeMemoryGiB: gib(freemem()),
      os: `${platform()} ${release()}`,
    },
    node: process.version,
    workers: settings.workers,
    maxQueue: settings.maxQueue,
    warmupSeconds: settings.warmupSeconds,
    seconds: settings.seconds,
    rounds: settings.rounds,
    roundSeconds: settings.roundSeconds,
    quick: settings.quick,
    serverLogLevel: settings.logLevel,
  };
}
