// Image scenario: POST /v1/image/compress of a typical request (a 3000 x
// 2000 photo as JPEG, to 1200 wide at quality 80, Lanczos, sRGB) at
// saturation, beside (a) the same sharp pipeline on a bare Piscina pool with
// the same threads, fed raw JPEG bytes (no HTTP, JSON, base64 or input
// checks: the ceiling), and (b) one `vips thumbnail` process per request,
// what a service without a resident libvips pays. (b) is skipped, with a
// note, when the vips CLI is not installed.
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { photoPixels } from '../../test/fixtures/photo.js';
import sharp from 'sharp';
import { measure, type LoadFigures } from '../autocannon.js';
import type { SharpTask } from '../baselines/sharp-worker.js';
import { vipsCli, vipsVersion } from '../baselines/vips-cli.js';
import type { ChildServer } from '../child.js';
import { warmThenLoop } from '../loop.js';
import type { Settings } from '../settings.js';
import { ratio, type Throughput } from '../stats.js';
import { RENDER_HEADERS, saturation } from './render.js';

export const IMAGE_PATH = '/v1/image/compress';
const WIDTH = 1200;
const QUALITY = 80;
const SHARP_WORKER = fileURLToPath(new URL('../baselines/sharp-worker.js', import.meta.url));

export interface ImageCompressResult {
  readonly connections: number;
  /** The JPEG sent, and what the server made of it. */
  readonly inputBytes: number;
  readonly outputBytes: number;
  readonly server: LoadFigures;
  readonly sharpPool: Throughput;
  /** undefined when the vips CLI is not installed (see vipsNote). */
  readonly vipsCli: Throughput | undefined;
  readonly vipsNote: string;
  readonly serverToSharpPool: number | undefined;
  readonly serverToVipsCli: number | undefined;
}

/**
 * A photo-like 3000 x 2000 JPEG at quality 90 (smooth gradients with a
 * little noise: it compresses like a photo, not like a flat test card),
 * built once so the server and every baseline get the same bytes.
 */
let photo: Promise<Buffer> | undefined;
export function photoJpeg(): Promise<Buffer> {
  photo ??= (() => {
    const width = 3000;
    const height = 2000;
    const raw = photoPixels(width, height);
    return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
  })();
  return photo;
}

export async function requestBody(): Promise<Buffer> {
  const jpeg = await photoJpeg();
  const body = { image_data: jpeg.toString('base64'), format: 'jpeg', options: { quality: QUALITY, max_width: WIDTH, resample: 'lanczos', color_space: 'rgb' } };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** Fails the bench before measuring if the server does not compress the photo as asked; returns the output size. */
async function checkCompress(base: string, body: Buffer): Promise<number> {
  const response = await fetch(base + IMAGE_PATH, { method: 'POST', headers: RENDER_HEADERS, body });
  const text = await response.text();
  const data = response.status === 200 ? (JSON.parse(text) as { data: { width: number; height: number; format: string; compressed_size_bytes: number } }).data : undefined;
  if (data === undefined || data.width !== WIDTH || data.height !== 800 || data.format !== 'jpeg') {
    throw new Error(`image check failed: ${response.status} ${text.slice(0, 500)}`);
  }
  return data.compressed_size_bytes;
}

export interface ImageOnServer {
  readonly figures: LoadFigures;
  readonly outputBytes: number;
}

export async function imageCompressOnServer(settings: Settings, server: ChildServer): Promise<ImageOnServer> {
  const body = await requestBody();
  const outputBytes = await checkCompress(server.base, body);
  const figures = await measure({ url: server.base + IMAGE_PATH, method: 'POST', headers: { ...RENDER_HEADERS }, body, connections: saturation(settings) }, settings.warmupSeconds, settings.seconds);
  return { figures, outputBytes };
}

/** The same pipeline on raw bytes through a bare pool with the server's threads and in-flight count. */
async function sharpPool(settings: Settings, inFlight: number, jpeg: Buffer): Promise<Throughput> {
  const pool = new Piscina<SharpTask, ArrayBuffer>({
    filename: SHARP_WORKER,
    minThreads: settings.workers,
    maxThreads: settings.workers,
    concurrentTasksPerWorker: 1,
    idleTimeout: Number.MAX_SAFE_INTEGER,
  });
  const task = async () => {
    // Transferred, so each task gets its own copy, as each HTTP request has its own body.
    const copy = new Uint8Array(jpeg.byteLength);
    copy.set(jpeg);
    const out = await pool.run({ jpeg: copy.buffer, width: WIDTH, quality: QUALITY }, { transferList: [copy.buffer] });
    if (out.byteLength === 0) throw new Error('sharp wrote nothing in the bare pool');
  };
  try {
    return await warmThenLoop(settings.warmupSeconds, settings.seconds, inFlight, task);
  } finally {
    await pool.close();
  }
}

/** Run while the Platen server is stopped. */
export async function imageCompressBaselines(settings: Settings, onServer: ImageOnServer): Promise<ImageCompressResult> {
  const connections = saturation(settings);
  const jpeg = await photoJpeg();
  const pool = await sharpPool(settings, connections, jpeg);
  const version = await vipsVersion();
  const cli = version === undefined ? undefined : await vipsCli(settings, connections, jpeg, WIDTH, QUALITY);
  return {
    connections,
    inputBytes: jpeg.byteLength,
    outputBytes: onServer.outputBytes,
    server: onServer.figures,
    sharpPool: pool,
    vipsCli: cli,
    vipsNote:
      version === undefined
        ? 'vips CLI not installed (Debian libvips-tools; test/tools.sh installs it): baseline skipped'
        : `${version} (Debian libvips-tools; sharp bundles its own libvips), default thread count, one process per request`,
    serverToSharpPool: ratio(onServer.figures.requestsPerSecond, pool.requestsPerSecond),
    serverToVipsCli: cli === undefined ? undefined : ratio(onServer.figures.requestsPerSecond, cli.requestsPerSecond),
  };
}
