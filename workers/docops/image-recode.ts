// One image XObject re-encoded for optimize: downsampled to the pixel size
// its placement needs and written with the encoding that suits it, with
// sharp (libvips, behind workers/seams/vips.ts):
// - a JPEG (DCTDecode) source stays JPEG, at the requested quality; one that
//   needs no downsampling (and no grayscale) passes through untouched, as
//   Ghostscript's PassThroughJPEGImages does, since re-encoding a JPEG at
//   the same size only adds loss;
// - a lossless (Flate) source becomes JPEG when it is photo-like (many
//   distinct colours), and stays Flate when it has few colours or sharp
//   edges (charts, screenshots, line art), where JPEG rings and grows;
// - a soft mask (alpha) always stays Flate, in gray.
// What is handled: 8 bits per component, gray or RGB (device or ICC-based),
// Flate with no predictor or a PNG predictor, baseline JPEG, the default
// /Decode. Anything else (Indexed, CMYK, Lab, 1/2/4/16-bit samples, custom
// /Decode arrays, colour-key masks, TIFF predictors, JPX, JBIG2, CCITT, LZW
// chains) is left exactly as it was: changing its samples safely needs more
// than a resize. A result that is not smaller than the stored bytes is dropped.
import { inflateSync, deflateSync } from 'node:zlib';
import type { ImageReplacement, ImageStream } from '../seams/pdf-rewrite.js';
import sharp from '../seams/vips.js';
import { currentDecodedBudget } from '../untrusted/decoded-bytes.js';
import { undoPngPredictors } from '../untrusted/png-predictors.js';

export interface RecodeSettings {
  readonly quality: number;
  readonly grayscale: boolean;
}

/** Larger images are left alone: decoding one would hold gigabytes in a worker (libvips' own default limit is 268 Mpx). */
export const MAX_IMAGE_PIXELS = 50_000_000;
/** Distinct colours (in a sample) past which a lossless image is a photograph and JPEG suits it. */
const PHOTO_COLOURS = 1024;
const SAMPLE_PIXELS = 65_536;

export type Role = 'image' | 'soft-mask';

/**
 * The image re-encoded at `size` pixels (its own size when undefined), or
 * undefined when it is left as it was: not handled, or nothing gained.
 */
export async function recodeImage(image: ImageStream, size: { width: number; height: number } | undefined, settings: RecodeSettings, role: Role): Promise<ImageReplacement | undefined> {
  if (!handled(image, role)) return undefined;
  const components = image.components as 1 | 3;
  const toGray = settings.grayscale && components === 3 && role === 'image';
  const source = image.filters[0] === 'DCTDecode' ? 'jpeg' : 'raw';
  if (size === undefined && !toGray && source === 'jpeg') return undefined;
  const width = size?.width ?? image.width;
  const height = size?.height ?? image.height;
  try {
    let pipeline;
    let photo: boolean;
    if (source === 'jpeg') {
      const meta = await sharp(image.bytes).metadata();
      if (meta.format !== 'jpeg' || meta.channels !== components || meta.width !== image.width || meta.height !== image.height) return undefined;
      pipeline = sharp(image.bytes);
      photo = true;
    } else {
      const samples = inflateSamples(image, components);
      if (samples === undefined) return undefined;
      photo = role === 'image' && distinctColoursAtLeast(samples, components, PHOTO_COLOURS);
      pipeline = sharp(samples, { raw: { width: image.width, height: image.height, channels: components } });
    }
    if (size !== undefined) pipeline = pipeline.resize(width, height, { fit: 'fill' });
    const channels = toGray ? 1 : components;
    // One channel out: grayscale() alone keeps three identical channels (sharp's docs), b-w writes one.
    if (channels === 1) pipeline = pipeline.toColourspace('b-w');
    let bytes: Uint8Array;
    let filter: ImageReplacement['filter'];
    if (photo) {
      const out = await pipeline.jpeg({ quality: settings.quality }).toBuffer({ resolveWithObject: true });
      if (out.info.channels !== channels) return undefined;
      bytes = out.data;
      filter = 'DCTDecode';
    } else {
      const out = await pipeline.raw().toBuffer({ resolveWithObject: true });
      if (out.info.channels !== channels || out.data.length !== width * height * channels) return undefined;
      bytes = deflateSync(out.data, { level: 9 });
      filter = 'FlateDecode';
    }
    if (bytes.length >= image.bytes.length) return undefined;
    return { bytes, filter, width, height, gray: toGray };
  } catch {
    // libvips refused the samples (a damaged JPEG, a truncated stream): the image stays as it was.
    return undefined;
  }
}

function handled(image: ImageStream, role: Role): boolean {
  if (image.imageMask || image.masked || image.customDecode || image.otherDecodeParms || image.matte) return false;
  if (image.bitsPerComponent !== 8 || (image.components !== 1 && image.components !== 3)) return false;
  if (role === 'soft-mask' && image.components !== 1) return false;
  if (image.width < 1 || image.height < 1 || image.width * image.height > MAX_IMAGE_PIXELS) return false;
  if (image.filters.length !== 1) return false;
  if (image.filters[0] === 'DCTDecode') return image.predictor === 1;
  return image.filters[0] === 'FlateDecode' && (image.predictor === 1 || image.predictor >= 10);
}

/**
 * Flate's samples, with a PNG predictor undone (ISO 32000-1, 7.4.4.4);
 * undefined when the data is short or broken. What it inflates is charged
 * to the task's decoded-bytes budget (untrusted/decoded-bytes.ts): past the
 * cap the image is left as it is and the task ends 422 pdf-limits-exceeded.
 */
function inflateSamples(image: ImageStream, components: number): Uint8Array | undefined {
  const rowBytes = image.width * components;
  const predicted = image.predictor >= 10;
  const expected = image.height * (rowBytes + (predicted ? 1 : 0));
  const budget = currentDecodedBudget();
  const room = budget.remaining + 1;
  const limit = Math.min(expected + 4096, room);
  let data: Buffer;
  try {
    data = inflateSync(image.bytes, { maxOutputLength: limit });
  } catch (error) {
    // Stopped by what the budget has left: charged, it throws (the caller keeps the image as it is).
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' && limit === room) budget.charge(limit);
    return undefined;
  }
  budget.charge(data.byteLength);
  if (data.length < expected) return undefined;
  if (!predicted) return data.subarray(0, expected);
  return undoPngPredictors(data, rowBytes, components, image.height);
}

/** Whether a sample of the pixels holds at least `threshold` distinct colours. */
function distinctColoursAtLeast(samples: Uint8Array, components: number, threshold: number): boolean {
  const pixels = samples.length / components;
  const step = Math.max(1, Math.floor(pixels / SAMPLE_PIXELS));
  const seen = new Set<number>();
  for (let p = 0; p < pixels; p += step) {
    const i = p * components;
    const colour = components === 1 ? (samples[i] as number) : ((samples[i] as number) << 16) | ((samples[i + 1] as number) << 8) | (samples[i + 2] as number);
    seen.add(colour);
    if (seen.size >= threshold) return true;
  }
  return false;
}
