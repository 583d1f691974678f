// Baseline (c), the driver: starts the naive node:http server as a child and
// loads it exactly as the Platen render run is loaded (same autocannon
// target, connections and body).
import { fileURLToPath } from 'node:url';
import { measure, type LoadFigures, type Target } from '../autocannon.js';
import { spawnServer } from '../child.js';
import type { Settings } from '../settings.js';

const NAIVE_SERVER = fileURLToPath(new URL('./naive-server.js', import.meta.url));

export async function naiveHttp(settings: Settings, target: (base: string) => Target): Promise<LoadFigures> {
  const server = await spawnServer({ script: NAIVE_SERVER, env: { PATH: process.env.PATH ?? '' }, port: 'announced' });
  try {
    return await measure(target(server.base), settings.warmupSeconds, settings.seconds);
  } finally {
    await server.stop();
  }
}
