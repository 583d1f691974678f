// The image row of `make bench` (pairs.ts), also run on its own by
// image-cpu.ts: POST /v1/image/compress through the server ÷ the same sharp
// pipeline on a bare pool fed raw JPEG bytes (baselines/sharp-worker.ts), in
// interleaved rounds, with the CPU time a request cost on each side
// (cpu-per-request.ts) beside the req/s ratio. The baseline does the same
// image work: same libvips settings, same pipeline, and the same output
// bytes (80,464 bytes for the bench photo, byte for byte the server's).
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { SharpTask } from './baselines/sharp-worker.js';
import type { ChildServer } from './child.js';
import { CpuAccount } from './cpu-per-request.js';
import { interleave, type InterleaveOptions } from './interleave.js';
import type { Comparison } from './pairs.js';
import { IMAGE_PATH, photoJpeg, QUALITY, requestBody, WIDTH } from './scenarios/image-compress.js';
import { RENDER_HEADERS, saturation } from './scenarios/render.js';
import type { Settings } from './settings.js';
import { loopSide, serverSide } from './sides.js';

const SHARP_WORKER = fileURLToPath(new URL('./baselines/sharp-worker.js', import.meta.url));

export const IMAGE_TO_SHARP = 'image compress: Platen ÷ sharp on a bare pool';

/** A pool of the server's thread count running the bare sharp pipeline; the caller closes it. */
export function sharpPool(settings: Settings): Piscina<SharpTask, ArrayBuffer> {
  return new Piscina<SharpTask, ArrayBuffer>({ filename: SHARP_WORKER, minThreads: settings.workers, maxThreads: settings.workers, concurrentTasksPerWorker: 1, idleTimeout: Number.MAX_SAFE_INTEGER });
}

/** Fails before measuring if the server's answer and the baseline's are not the same image. */
async function checkSameOutput(server: ChildServer, pool: Piscina<SharpTask, ArrayBuffer>, body: Buffer, jpeg: Buffer): Promise<void> {
  const response = await fetch(server.base + IMAGE_PATH, { method: 'POST', headers: RENDER_HEADERS, body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`image compress: the server answered ${response.status}: ${text.slice(0, 500)}`);
  const ours = Buffer.from((JSON.parse(text) as { data: { image_data: string } }).data.image_data, 'base64');
  const copy = new Uint8Array(jpeg);
  const theirs = Buffer.from(await pool.run({ jpeg: copy.buffer, width: WIDTH, quality: QUALITY }, { transferList: [copy.buffer] }));
  if (!ours.equals(theirs)) throw new Error(`image compress: the server's image (${ours.byteLength} bytes) is not the baseline's (${theirs.byteLength} bytes): the two sides do different work`);
}

export async function compareImageToSharp(settings: Settings, server: ChildServer, pool: Piscina<SharpTask, ArrayBuffer>, options: InterleaveOptions): Promise<Comparison> {
  const connections = saturation(settings);
  const jpeg = await photoJpeg();
  const body = await requestBody();
  await checkSameOutput(server, pool, body, jpeg);
  const platen = serverSide('Platen', { url: server.base + IMAGE_PATH, headers: { ...RENDER_HEADERS }, body, connections });
  const sharp = loopSide('sharp, bare pool, raw bytes', connections, async () => {
    const copy = new Uint8Array(jpeg.byteLength);
    copy.set(jpeg);
    const out = await pool.run({ jpeg: copy.buffer, width: WIDTH, quality: QUALITY }, { transferList: [copy.buffer] });
    if (out.byteLength === 0) throw new Error('sharp wrote nothing in the bare pool');
  });
  const cpu = new CpuAccount(server.pid);
  const ratio = await interleave(IMAGE_TO_SHARP, platen, sharp, options, cpu.hooks);
  return { ratio, target: { text: '≥ 0.9', met: (m) => m >= 0.9 }, cpuPerRequest: cpu.result() };
}
