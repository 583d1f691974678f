// The built Platen server (dist/src/main.js) as the bench runs it: its own
// key, limits raised out of the way, quiet logs, a fixed worker count.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnServer, type ChildServer } from './child.js';
import { BENCH_KEY_ENTRY } from './documents.js';
import type { Settings } from './settings.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

/** Levels at which main.ts's info line "listening" (with the port) is printed. */
const ANNOUNCING_LEVELS = new Set(['info', 'debug', 'trace']);

/** `env`: settings of the scenario (e.g. its own PLATEN_DATA_DIR), over the bench's. */
export function startPlaten(settings: Settings, env: Record<string, string> = {}, nodeArgs: readonly string[] = []): Promise<ChildServer> {
  // At warn (the default here, so that the per-request info line is not what
  // gets measured) the server prints nothing at start-up, so the port cannot
  // be read from its output: a free port is chosen up front instead.
  const announces = ANNOUNCING_LEVELS.has(settings.logLevel);
  return (announces ? Promise.resolve(0) : freePort()).then((port) =>
    spawnServer({
      script: MAIN,
      nodeArgs,
      port: announces ? 'announced' : port,
      env: {
        PATH: process.env.PATH ?? '',
        PLATEN_PORT: String(port),
        PLATEN_API_KEYS: BENCH_KEY_ENTRY,
        // The schema's maximum (src/config-env.ts); every request comes from 127.0.0.1.
        PLATEN_IP_RPM: '10000000',
        PLATEN_LOG_LEVEL: settings.logLevel,
        PLATEN_WORKERS: String(settings.workers),
        // Set explicitly (its default is 4 × workers) so that the bench's
        // connection counts are computed from the value the server uses.
        PLATEN_MAX_QUEUE: String(settings.maxQueue),
        // Job records and results go to a scratch directory, not the checkout.
        PLATEN_DATA_DIR: mkdtempSync(join(tmpdir(), 'platen-bench-')),
        ...env,
      },
    }),
  );
}
