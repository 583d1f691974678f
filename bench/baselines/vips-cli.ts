// Baseline for the image scenario: what a service without a resident
// libvips does, one `vips thumbnail` process per request (Debian's
// libvips-tools: write the upload to a file, spawn, read the result). Same
// shrink-on-load and Lanczos 3 kernel as sharp's resize; the process uses
// libvips's default thread count, as it would when spawned by a service.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { warmThenLoop } from '../loop.js';
import type { Settings } from '../settings.js';
import type { Throughput } from '../stats.js';

const run = promisify(execFile);

/** The installed CLI's version line, or undefined when there is no `vips` command. */
export async function vipsVersion(): Promise<string | undefined> {
  try {
    return (await run('vips', ['--version'])).stdout.trim();
  } catch {
    return undefined;
  }
}

export async function vipsCli(settings: Settings, inFlight: number, jpeg: Buffer, width: number, quality: number): Promise<Throughput> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-bench-vips-'));
  let next = 0;
  const task = async () => {
    const id = next++;
    const input = join(dir, `in-${id}.jpg`);
    const output = join(dir, `out-${id}.jpg`);
    await writeFile(input, jpeg);
    await run('vips', ['thumbnail', input, `${output}[Q=${quality},strip]`, String(width), '--size', 'down']);
    const bytes = await readFile(output);
    if (bytes.byteLength === 0) throw new Error('vips thumbnail wrote nothing');
    await Promise.all([rm(input), rm(output)]);
  };
  try {
    return await warmThenLoop(settings.warmupSeconds, settings.seconds, inFlight, task);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
