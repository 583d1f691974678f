// Images for the image-compress tests, built here with sharp (so every
// fixture says how it was made), and a second opinion from the `vips` CLI
// (Debian's libvips-tools, installed by test/tools.sh) where it is present.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';
import sharp, { type Metadata } from 'sharp';
import { photoPixels } from '../fixtures/photo.js';
import { KEYS, bearer } from './keys.js';
import { assertMatchesContract, loadContract } from './openapi.js';

const run = promisify(execFile);

export { photoPixels };

export type Rgb = readonly [number, number, number];

export function photoJpeg(width: number, height: number, quality = 90): Promise<Buffer> {
  return sharp(photoPixels(width, height), { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

/** Vertical bands, left to right, each `[width, colour]`; opaque RGB. */
export function bandPixels(height: number, ...parts: Array<[number, Rgb]>): { raw: Buffer; width: number; height: number } {
  const width = parts.reduce((sum, [w]) => sum + w, 0);
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    let x = 0;
    for (const [w, colour] of parts) {
      for (let i = 0; i < w; i++, x++) raw.set(colour, (y * width + x) * 3);
    }
  }
  return { raw, width, height };
}

export function bandsImage(height: number, ...parts: Array<[number, Rgb]>) {
  const { raw, width } = bandPixels(height, ...parts);
  return sharp(raw, { raw: { width, height, channels: 3 } });
}

/** An animated image of one solid colour per frame, `width` x `height` each. */
export function animated(width: number, height: number, colours: readonly Rgb[]) {
  const raw = Buffer.alloc(width * height * colours.length * 3);
  colours.forEach((colour, frame) => {
    for (let i = 0; i < width * height; i++) raw.set(colour, (frame * width * height + i) * 3);
  });
  return sharp(raw, { raw: { width, height: height * colours.length, channels: 3, pageHeight: height } });
}

/**
 * A valid PNG that declares `width` x `height` pixels but holds a few bytes of
 * image data: what a decompression bomb's header looks like. Chunks with
 * correct CRCs, so only the size can refuse it.
 */
export function hugePngHeader(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** Raw pixels of an image and their layout (channels as stored). */
export async function pixels(bytes: Uint8Array): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** The pixel at (x, y), one number per channel. */
export function pixelAt(image: { data: Buffer; width: number; channels: number }, x: number, y: number): number[] {
  const at = (y * image.width + x) * image.channels;
  return [...image.data.subarray(at, at + image.channels)];
}

/** Each channel of `actual` within `tolerance` of `expected` (lossy encoders move colours a little). */
export function near(actual: readonly number[], expected: readonly number[], tolerance = 12): boolean {
  return actual.length === expected.length && actual.every((value, i) => Math.abs(value - (expected[i] as number)) <= tolerance);
}

export interface VipsHeader {
  readonly width: number;
  readonly height: number;
  readonly bands: number;
  readonly interpretation: string;
  readonly loader: string;
}

let vipsPresent: Promise<boolean> | undefined;

/** Whether the `vipsheader` command exists on this machine. */
export function hasVips(): Promise<boolean> {
  vipsPresent ??= run('vipsheader', ['--version']).then(
    () => true,
    () => false,
  );
  return vipsPresent;
}

/** Runs `use` on a temporary file holding the image, removed afterwards. */
async function withImageFile<T>(bytes: Uint8Array, suffix: string, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-vips-'));
  try {
    const path = join(dir, `image.${suffix}`);
    await writeFile(path, bytes);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `vipsheader` on the image: "30x20 uchar, 4 bands, cmyk, jpegload". */
export function vipsHeader(bytes: Uint8Array, suffix: string): Promise<VipsHeader> {
  return withImageFile(bytes, suffix, async (path) => {
    const line = (await run('vipsheader', [path])).stdout.trim();
    const match = /: (\d+)x(\d+) \w+, (\d+) bands?, ([\w-]+), (\w+)/.exec(line);
    if (match === null) throw new Error(`unexpected vipsheader output: ${line}`);
    return { width: Number(match[1]), height: Number(match[2]), bands: Number(match[3]), interpretation: match[4] as string, loader: match[5] as string };
  });
}

/** `vips getpoint`: the stored band values at (x, y), with no colour conversion (CMYK stays ink values). */
export function vipsPoint(bytes: Uint8Array, suffix: string, x: number, y: number): Promise<number[]> {
  return withImageFile(bytes, suffix, async (path) => (await run('vips', ['getpoint', path, String(x), String(y)])).stdout.trim().split(/\s+/).map(Number));
}

export interface Compressed {
  readonly status: number;
  /** The response body, already checked against the accelerator contract. */
  readonly body: Record<string, unknown>;
}

export interface CompressedImage {
  readonly data: { image_data: string; original_size_bytes: number; compressed_size_bytes: number; width: number; height: number; format: string };
  readonly meta: { duration_ms: number; worker_id: string; cached: boolean };
  /** image_data decoded. */
  readonly bytes: Buffer;
  /** sharp's reading of the bytes. */
  readonly info: Metadata;
}

/** POST /v1/image/compress; the answer is checked against the contract whatever its status. */
export async function compress(base: string, body: unknown, key: string = KEYS.enterprise): Promise<Compressed> {
  const response = await fetch(`${base}/v1/image/compress`, {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const checked = await assertMatchesContract(await loadContract('accel'), 'post', '/v1/image/compress', response);
  return { status: response.status, body: checked as Record<string, unknown> };
}

/** A compression that must succeed, with its image decoded and read back by sharp. */
export async function compressed(base: string, body: unknown, key?: string): Promise<CompressedImage> {
  const { status, body: answer } = await compress(base, body, key);
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(answer)}`);
  const data = answer.data as CompressedImage['data'];
  const bytes = Buffer.from(data.image_data, 'base64');
  return { data, meta: answer.meta as CompressedImage['meta'], bytes, info: await sharp(bytes).metadata() };
}

/** The problem's slug and, on 422, its first error as [field, code]. */
export function problemOf(answer: Compressed): { status: number; slug: string; detail: string; first?: [string, string] } {
  const body = answer.body as { type: string; detail: string; errors?: Array<{ field: string; code: string }> };
  const first = body.errors?.[0];
  return {
    status: answer.status,
    slug: body.type.slice(body.type.lastIndexOf('/') + 1),
    detail: body.detail,
    ...(first === undefined ? {} : { first: [first.field, first.code] as [string, string] }),
  };
}
