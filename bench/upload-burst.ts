// Memory after a burst of large uploads (issue 9): 30 concurrent 62 MB
// bodies against the built server, RSS and the heap/external split read
// before, at the peak, and while idle afterwards. Run with the body budget
// (default) and without it (PLATEN_BODY_BUDGET_BYTES huge), and with
// MALLOC_ARENA_MAX=2, side by side:
//   node dist/bench/upload-burst.js [budget-bytes|default] [malloc-arena-max|-]
// Prints one JSON line. About 45 s a run; not part of `npm run bench`.
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, spawnServer } from './child.js';
import { BENCH_KEY, BENCH_KEY_ENTRY } from './documents.js';

const UPLOADS = 30;
const SIZE = 62 * 1000 * 1000;
const [budgetArg = 'default', arenaArg = '-'] = process.argv.slice(2);

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(match?.[1] ?? 0) / 1024);
}

async function nodeMemory(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const read = (name: string) => Math.round(Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / 1e6);
  return { heap_used_mb: read('nodejs_heap_size_used_bytes'), external_mb: read('nodejs_external_memory_bytes') };
}

const port = await freePort();
const server = await spawnServer({
  script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
  port,
  env: {
    PATH: process.env.PATH ?? '',
    PLATEN_PORT: String(port),
    PLATEN_API_KEYS: BENCH_KEY_ENTRY,
    PLATEN_IP_RPM: '10000000',
    PLATEN_LOG_LEVEL: 'warn',
    PLATEN_WORKERS: '2',
    PLATEN_METRICS_ENABLED: 'true',
    PLATEN_DATA_DIR: mkdtempSync(join(tmpdir(), 'platen-burst-')),
    // A heap snapshot runs a full GC first: SIGUSR2 shows what a collection gives back (written to the cwd).
    NODE_OPTIONS: '--heapsnapshot-signal=SIGUSR2',
    ...(budgetArg === 'default' ? {} : { PLATEN_BODY_BUDGET_BYTES: budgetArg }),
    ...(arenaArg === '-' ? {} : { MALLOC_ARENA_MAX: arenaArg }),
  },
});

const json = JSON.stringify({ operations: [{ type: 'add_text', text: 'burst' }] });
const body = Buffer.alloc(SIZE, 0x20);
body.write(json);
const before = { rss_mb: rssMb(server.pid), ...(await nodeMemory(server.base)) };
let peak = before.rss_mb;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.pid))), 50);
const started = performance.now();
const statuses = await Promise.all(
  Array.from({ length: UPLOADS }, () =>
    fetch(`${server.base}/api/v1/render`, { method: 'POST', headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' }, body })
      .then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      })
      .catch(() => 0),
  ),
);
const burstMs = Math.round(performance.now() - started);
clearInterval(sampler);
const counts: Record<string, number> = {};
for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
const afterBurst = { rss_mb: rssMb(server.pid), ...(await nodeMemory(server.base)) };
// Idle: nothing runs, so nothing allocates and V8 has no reason to collect.
await sleep(15_000);
const idle15s = { rss_mb: rssMb(server.pid), ...(await nodeMemory(server.base)) };
process.kill(server.pid, 'SIGUSR2');
// The snapshot is written synchronously on the server's thread: the next answer comes after it.
const afterGc = { ...(await nodeMemory(server.base)), rss_mb: rssMb(server.pid) };
await server.stop();
console.log(JSON.stringify({ budget: budgetArg, malloc_arena_max: arenaArg, uploads: UPLOADS, size: SIZE, statuses: counts, burst_ms: burstMs, before, peak_rss_mb: peak, after_burst: afterBurst, idle_15s: idle15s, after_full_gc: afterGc }));
