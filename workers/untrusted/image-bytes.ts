// The one decision on untrusted image bytes, for every task that decodes
// images (add_image and <img> in the render engine, POST /v1/image/compress):
// the container from its first bytes (image-format.ts: raster formats only),
// the header through libvips, which must name the same container, and the
// codings this build can decode. Two copies of it had drifted: one refused
// HEIF only when HEVC-coded, the other everything but AV1 (issue 9).
//
// Refusals are worded here, in our own words, as a predicate the caller puts
// its subject before ("image_data is damaged ..."). What libvips said goes
// to `cause`, for the server's log only: its messages name decoder internals
// ("VipsJpeg: premature end of JPEG image", "vipspng: libpng read error")
// that tell a client nothing it can act on (issue 9).
import sharp, { type Metadata, type SharpOptions } from '../seams/vips.js';
import { sniffRaster, type RasterFormat } from './image-format.js';

export type { RasterFormat };

/** How a person names each container. HEIF is accepted only AV1-coded, i.e. as AVIF (see decodable). */
export const CONTAINER_NAMES: Readonly<Record<RasterFormat, string>> = {
  png: 'PNG',
  jpeg: 'JPEG',
  webp: 'WebP',
  gif: 'GIF',
  tiff: 'TIFF',
  heif: 'AVIF',
};

export const ACCEPTED_IMAGES = 'JPEG, PNG, WebP, AVIF, GIF or TIFF';

export type ImageRefusalKind = 'unsupported' | 'damaged' | 'too-many-pixels';

/** Why image bytes were refused: `message` is for the client, `cause` (the library's text) for the log. */
export class ImageRefusal extends Error {
  constructor(
    readonly kind: ImageRefusalKind,
    message: string,
    override readonly cause?: string,
  ) {
    super(message);
    this.name = 'ImageRefusal';
  }
}

export interface ImageHeader {
  readonly format: RasterFormat;
  readonly meta: Metadata;
}

/**
 * The container and libvips's reading of the header (no pixel decoded), or
 * an ImageRefusal. `decode` are the options the caller will decode with
 * (its pixel limit among them).
 */
export async function readImageHeader(bytes: Uint8Array, decode: SharpOptions): Promise<ImageHeader> {
  const format = sniffRaster(bytes);
  if (format === undefined) {
    throw new ImageRefusal('unsupported', `is not a ${ACCEPTED_IMAGES} image; SVG, PDF and other formats are not accepted`);
  }
  const meta = await decodingImage(format, () => sharp(bytes, decode).metadata());
  const refusal = undecodable(format, meta);
  if (refusal !== undefined) throw refusal;
  return { format, meta };
}

/**
 * Whether libvips agrees with the magic bytes, and can decode the coding it
 * found. HEIF: only AV1 (AVIF). sharp's prebuilt libheif has no HEVC
 * decoder, and any other coding (JPEG- or uncompressed HEIF) would fail
 * later, mid-decode, with a libheif message instead of this answer.
 */
export function undecodable(format: RasterFormat, meta: Pick<Metadata, 'format' | 'compression'>): ImageRefusal | undefined {
  if (meta.format !== format) {
    return new ImageRefusal('unsupported', `starts like ${CONTAINER_NAMES[format]} but does not decode as ${CONTAINER_NAMES[format]}; send a ${ACCEPTED_IMAGES} image`, `libvips reads it as ${String(meta.format)}`);
  }
  if (format === 'heif' && meta.compression !== 'av1') {
    const coding = meta.compression === 'hevc' ? 'HEIC (HEVC-coded HEIF)' : `HEIF coded as ${String(meta.compression ?? 'unknown')}`;
    return new ImageRefusal('unsupported', `is ${coding}, which this server cannot decode; send AVIF, JPEG or PNG`);
  }
  return undefined;
}

/** Runs a libvips call on the input, turning its errors into ImageRefusals (refusalOf). */
export async function decodingImage<T>(format: RasterFormat, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw refusalOf(format, error);
  }
}

/**
 * A libvips error about the input as a refusal. sharp's errors carry no
 * codes, so the pixel limit and truncation are known by their messages
 * (libvips 8.17: "exceeds pixel limit"; libjpeg "premature end", libpng
 * "Read Error"/"IDAT: unexpected end", libwebp/libtiff/GIF "truncated").
 */
export function refusalOf(format: RasterFormat, error: unknown): ImageRefusal {
  const cause = libvipsMessage(error);
  const name = CONTAINER_NAMES[format];
  if (/exceeds pixel limit/i.test(cause)) return new ImageRefusal('too-many-pixels', 'has more pixels than this server decodes', cause);
  if (/premature end|unexpected end|truncat|read error|end of (file|stream|data)|out of data|not enough data/i.test(cause)) {
    return new ImageRefusal('damaged', `is truncated: its ${name} data ends before the image is complete; send the whole file`, cause);
  }
  return new ImageRefusal('damaged', `is damaged and cannot be decoded as ${name}; check that the file opens in an image viewer`, cause);
}

/**
 * The first lines of libvips's message, printable characters only: they name
 * the decoder's complaint, never the image's contents. For the log, and for
 * matching libvips's own conditions (timeouts, format limits).
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
