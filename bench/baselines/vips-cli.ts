// Baseline for the image scenario: what a service without a resident
// libvips does, one `vips thumbnail` process per request (Debian's
// libvips-tools: write the upload to a file, spawn, read the result). Same
// shrink-on-load and Lanczos 3 kernel as sharp's resize; the process uses
// libvips's default thread count, as it would when spawned by a service.
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The installed CLI's version line, or undefined when there is no `vips` command. */
export async function vipsVersion(): Promise<string | undefined> {
  try {
    return (await run('vips', ['--version'])).stdout.trim();
  } catch {
    return undefined;
  }
}

/** One `vips thumbnail` run per call, in `dir` (the caller's scratch directory). */
export function vipsThumbnail(dir: string, jpeg: Buffer, width: number, quality: number): () => Promise<void> {
  let next = 0;
  return async () => {
    const id = next++;
    const input = join(dir, `in-${id}.jpg`);
    const output = join(dir, `out-${id}.jpg`);
    await writeFile(input, jpeg);
    await run('vips', ['thumbnail', input, `${output}[Q=${quality},strip]`, String(width), '--size', 'down']);
    const bytes = await readFile(output);
    if (bytes.byteLength === 0) throw new Error('vips thumbnail wrote nothing');
    await Promise.all([rm(input), rm(output)]);
  };
}
