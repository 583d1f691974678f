// The untrusted input of POST /v1/image/compress, checked before any pixel
// is decoded: the base64 length against the byte cap, the container from
// its first bytes (raster formats only: no SVG, no PDF, whatever libvips
// could open), the header through libvips, which must name the same
// container, and the pixel count against the cap. Each refusal is the
// problem it becomes: 413 image-too-large, 400 invalid-image-data, or 422
// for image_data that is not base64 at all.
import type { ImageCompressOptions } from '../protocol.js';
import { decodeBase64 } from '../task/base64.js';
import { TaskFailure } from '../task/json-task.js';
import { ImageRefusal, readImageHeader, refusalOf, type RasterFormat } from '../untrusted/image-bytes.js';
import type { Metadata } from '../seams/vips.js';
import type { Base64Value } from '../task/decoded-member.js';

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

export async function readInput(imageData: Base64Value, options: ImageCompressOptions): Promise<InputImage> {
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
  let header;
  try {
    // The header only: no pixel is decoded here, so there is no pixel limit yet (checkPixels says why it refuses).
    header = await readImageHeader(bytes, { limitInputPixels: false });
  } catch (error) {
    if (error instanceof ImageRefusal) throw asTaskFailure(error);
    throw error;
  }
  const { format, meta } = header;
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

/** A libvips error about the input as the problem it becomes (the shared wording of untrusted/image-bytes.ts). */
export function inputProblem(format: RasterFormat, error: unknown): TaskFailure {
  return asTaskFailure(refusalOf(format, error));
}

function asTaskFailure(refusal: ImageRefusal): TaskFailure {
  if (refusal.kind === 'too-many-pixels') {
    return new TaskFailure('image-too-large', 'The image has more pixels than this server decodes (PLATEN_MAX_IMAGE_PIXELS); send a smaller image.', [], refusal.cause);
  }
  return new TaskFailure('invalid-image-data', `image_data ${refusal.message}.`, [], refusal.cause);
}
