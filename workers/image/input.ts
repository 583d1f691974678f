// The untrusted input of POST /v1/image/compress, checked before any pixel
// is decoded: the base64 length against the byte cap, the container from
// its first bytes (raster formats only: no SVG, no PDF, whatever libvips
// could open), the header through libvips, which must name the same
// container, and the pixel count against the cap. Each refusal is the
// problem it becomes: 413 image-too-large, 400 invalid-image-data, or 422
// for image_data that is not base64 at all.
import type { ImageCompressOptions } from '../protocol.js';
import { decodeBase64 } from '../task/base64.js';
import { sniffRaster, type RasterFormat } from '../untrusted/image-format.js';
import { TaskFailure } from '../task/json-task.js';
import sharp, { type Metadata } from '../seams/vips.js';

export interface InputImage {
  readonly bytes: Uint8Array;
  readonly format: RasterFormat;
  /** Of one frame, as stored (before the EXIF orientation is applied). */
  readonly width: number;
  readonly height: number;
  /** Frames of an animated GIF/WebP, pages of a TIFF; 1 for a still image. */
  readonly frames: number;
  readonly hasAlpha: boolean;
  readonly greyscale: boolean;
}

/** How a person names each container in a detail. */
export const CONTAINER_NAMES: Readonly<Record<RasterFormat, string>> = {
  png: 'PNG',
  jpeg: 'JPEG',
  webp: 'WebP',
  gif: 'GIF',
  tiff: 'TIFF',
  heif: 'AVIF',
};

const ACCEPTED = 'JPEG, PNG, WebP, AVIF, GIF or TIFF';

export async function readInput(imageData: string, options: ImageCompressOptions): Promise<InputImage> {
  const decoded = decodeBase64(imageData, options.maxImageBytes);
  if ('problem' in decoded) {
    if (decoded.problem === 'too-large') {
      throw new TaskFailure(
        'image-too-large',
        `image_data decodes to more than ${options.maxImageBytes} bytes, the most this server accepts (PLATEN_MAX_IMAGE_BYTES); send a smaller file.`,
      );
    }
    throw TaskFailure.field('image_data', 'INVALID_FORMAT', `${decoded.message} (the image file's bytes, base64-encoded; a data: URI is accepted)`);
  }
  const bytes = decoded;
  const format = sniffRaster(bytes);
  if (format === undefined) {
    throw new TaskFailure('invalid-image-data', `image_data is not a ${ACCEPTED} image; SVG, PDF and other formats are not accepted.`);
  }
  // The header only: no pixel is decoded here, so there is no pixel limit yet (checkPixels says why it refuses).
  const meta = await decoding(format, () => sharp(bytes, { limitInputPixels: false }).metadata());
  if (meta.format !== format) {
    throw new TaskFailure('invalid-image-data', `image_data starts like ${CONTAINER_NAMES[format]} but libvips reads it as ${String(meta.format)}; send a ${ACCEPTED} image.`);
  }
  if (meta.format === 'heif' && meta.compression !== 'av1') {
    throw new TaskFailure('invalid-image-data', 'image_data is HEIC (HEVC-coded HEIF), which this server cannot decode; send AVIF, JPEG or PNG.');
  }
  return {
    bytes,
    format,
    width: meta.width,
    height: meta.height,
    frames: Math.max(1, meta.pages ?? 1),
    hasAlpha: meta.hasAlpha,
    greyscale: isGreyscale(meta),
  };
}

/**
 * The decoder's pixel budget (PLATEN_MAX_IMAGE_PIXELS): width x height, times
 * the frames when every frame is kept. Checked on the header, so a small file
 * declaring 100000 x 100000 pixels is refused without allocating anything;
 * libvips enforces the same limit again while decoding.
 */
export function checkPixels(input: InputImage, allFrames: boolean, maxPixels: number): void {
  const frames = allFrames ? input.frames : 1;
  const pixels = input.width * input.height * frames;
  if (pixels <= maxPixels) return;
  const size = `${input.width} x ${input.height} pixels${frames > 1 ? ` x ${frames} frames` : ''}`;
  throw new TaskFailure(
    'image-too-large',
    `The image is ${size} (${pixels}), more than the ${maxPixels} pixels this server decodes (PLATEN_MAX_IMAGE_PIXELS); send a smaller image${frames > 1 ? ' or leave options.animated false' : ''}.`,
  );
}

function isGreyscale(meta: Metadata): boolean {
  return meta.space === 'b-w' || meta.space === 'grey16';
}

/** Runs a libvips call on the input, turning its errors into problems (inputProblem). */
export async function decoding<T>(format: RasterFormat, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw inputProblem(format, error);
  }
}

/**
 * A libvips error about the input as the problem it becomes. sharp's errors
 * carry no codes, so the pixel limit is known by its message.
 */
export function inputProblem(format: RasterFormat, error: unknown): TaskFailure {
  const message = libvipsMessage(error);
  if (/exceeds pixel limit/i.test(message)) {
    return new TaskFailure('image-too-large', 'The image has more pixels than this server decodes (PLATEN_MAX_IMAGE_PIXELS); send a smaller image.');
  }
  return new TaskFailure('invalid-image-data', `image_data is damaged or truncated and cannot be decoded as ${CONTAINER_NAMES[format]} (${message}).`);
}

/**
 * The first lines of libvips's message, printable characters only: they name
 * the decoder's complaint, never the image's contents.
 */
export function libvipsMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const lines = text
    .split('\n')
    .map((line) => line.replace(/[^\x20-\x7e]/g, '').trim())
    .filter((line) => line !== '');
  const joined = lines.slice(0, 2).join(' ').replace(/:\s*$/, '');
  return joined.length > 200 ? `${joined.slice(0, 197)}...` : joined;
}
