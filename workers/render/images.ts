// Images for the render engine: untrusted bytes in, a PDF image XObject out,
// and its placement on the page. Used by add_image and by add_html's
// <img src="data:...">.
//
// Only raster formats are read, and only from bytes the client sent: nothing
// here fetches a URL. The container is recognised twice, by its magic bytes
// and by the decoder sharp picks, and both must agree; SVG, PDF and anything
// else libvips could open are refused before any pixel is decoded.
//
// After a decode that proves them intact, JPEG goes into the PDF byte for
// byte and PNG with its pixels unchanged (a grey or RGB PNG with its image
// data copied as is, see seams/png.ts; others through pdf-lib, losslessly); WebP, GIF, TIFF, AVIF/HEIF, rotated (EXIF)
// and JPEG variants a PDF cannot hold (CMYK, 12-bit, lossless, arithmetic)
// are converted by sharp: to PNG when lossless matters (alpha, palette
// images such as GIF, PNG input), otherwise to JPEG at quality 90 without
// chroma subsampling (4:4:4 keeps thin coloured lines in screenshots and
// charts sharp; 4:2:0 halves their colour resolution).
import { createHash } from 'node:crypto';
import { ImageRefusal, decodingImage, readImageHeader, type RasterFormat } from '../untrusted/image-bytes.js';
import type { Document, Image } from '../seams/pdf.js';
import sharp, { type Metadata, type SharpOptions } from '../seams/vips.js';
import type { PageCanvas } from './canvas.js';
import { RenderError } from './errors.js';
import type { RenderContext } from './context.js';

/** Encoded bytes of one image; a 24 MP camera JPEG is 8-15 MB. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/**
 * Pixels of one image (about 7700 x 5200), checked by libvips on the header
 * before it decodes anything: a small compressed file declaring 20000 x 20000
 * pixels is refused at once instead of allocating 1.6 GB.
 */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** Decoded bytes of one image (pixels x channels x sample size): 40 MP of 8-bit RGBA, or 20 MP at 16 bits. */
export const MAX_DECODED_BYTES = 160_000_000;
/**
 * What one document's images may hold in memory until the PDF is saved.
 * pdf-lib decodes a PNG it embeds (all but grey/RGB ones without alpha,
 * which are copied as they are) into RGB plus alpha (4 bytes a pixel) and
 * keeps it until save; JPEG stays compressed. Counting every PNG so errs safe. 256 MiB is 64 MP of PNG, half the
 * worker's default 512 MB budget.
 */
export const MAX_DOCUMENT_IMAGE_BYTES = 256 * 1024 * 1024;
/**
 * Distinct images of one document (the same bytes again are free). Each
 * costs a decode and an XObject however small: 5,000 distinct 1 x 1 PNGs in
 * 855 KB of HTML took 5.3 s.
 */
export const MAX_DOCUMENT_IMAGES = 1_000;
const JPEG_QUALITY = 90;

/**
 * For every decode: the pixel limit; the first frame or page only; and
 * 'warning', the strictest failOn, which sharp recommends for untrusted
 * input: truncated files and corrupt entropy-coded data are rejected, not
 * drawn half grey.
 */
const DECODE: SharpOptions = { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'warning', pages: 1, page: 0 };

export interface ImageBox {
  readonly width?: number;
  readonly height?: number;
  readonly fit?: 'contain' | 'cover' | 'fill';
  readonly align?: 'left' | 'center' | 'right';
}

/** A reason to refuse the bytes, without the field: a cached load may be shared by several fields. `cause` is for the log. */
class ImageRejection extends Error {
  constructor(
    readonly code: 'INVALID_IMAGE' | 'UNSUPPORTED_IMAGE' | 'IMAGE_TOO_LARGE',
    message: string,
    override readonly cause?: string,
  ) {
    super(message);
  }
}

interface DocumentImages {
  /** Loads by SHA-256 of the bytes sent, so an image used twice is one XObject. */
  readonly byHash: Map<string, Promise<Image>>;
  held: number;
}

const documents = new WeakMap<Document, DocumentImages>();

/** Decodes, validates and embeds image bytes (cached per document); throws RenderError (422) with `field` on bad input. */
export async function loadImage(context: Pick<RenderContext, 'doc'>, bytes: Uint8Array, field: string): Promise<Image> {
  let images = documents.get(context.doc);
  if (images === undefined) {
    images = { byHash: new Map(), held: 0 };
    documents.set(context.doc, images);
  }
  const hash = createHash('sha256').update(bytes).digest('hex');
  let loading = images.byHash.get(hash);
  if (loading === undefined) {
    if (images.byHash.size >= MAX_DOCUMENT_IMAGES) {
      const message = `A document may hold at most ${MAX_DOCUMENT_IMAGES} distinct images (the same image again does not count); split it into several documents.`;
      throw new RenderError([{ field, code: 'TOO_LARGE', message }]);
    }
    loading = embed(context.doc, images, bytes);
    images.byHash.set(hash, loading);
  }
  try {
    return await loading;
  } catch (error) {
    if (!(error instanceof ImageRejection)) throw error;
    throw new RenderError([{ field, code: error.code, message: error.message }], error.cause);
  }
}

async function embed(doc: Document, images: DocumentImages, bytes: Uint8Array): Promise<Image> {
  const { format, meta } = await decoding(undefined, () => readImageHeader(bytes, DECODE));
  const decoded = meta.width * meta.height * meta.channels * sampleBytes(meta.depth);
  if (decoded > MAX_DECODED_BYTES) {
    throw new ImageRejection('IMAGE_TOO_LARGE', `${meta.width} x ${meta.height} pixels decode to ${decoded} bytes; at most ${MAX_DECODED_BYTES} are allowed`);
  }

  const upright = (meta.orientation ?? 1) === 1;
  // PDF/A-1 forbids soft masks (ISO 19005-1 6.4, veraPDF 6.4-2) and, being PDF 1.4, 16-bit samples: an image
  // with alpha is flattened onto white, the colour of the page it is drawn on (README, PDF/A output).
  const opaque = !doc.transparency && (meta.hasAlpha || meta.depth === 'ushort');
  const asIs = !opaque && upright && ((format === 'png' && !isAnimatedPng(bytes)) || (format === 'jpeg' && pdfCanHoldJpeg(bytes)));
  const lossless = asIs ? format === 'png' : meta.hasAlpha || meta.isPalette || format === 'png' || format === 'gif';
  const kind = lossless ? 'png' : 'jpeg';
  // Checked before decoding for PNG, whose pixels pdf-lib keeps; JPEG is counted once its size is known.
  hold(images, kind === 'png' ? meta.width * meta.height * 4 : 0);
  let out = bytes;
  if (asIs) {
    // Decoding to 8 x 8 reads every byte and fails on damage; JPEG decodes through DCT scaling then
    // (a 36 MP JPEG: 200 ms against 1050 ms for a full decode, measured with sharp 0.35 on one thread).
    await decoding(format, () => sharp(bytes, DECODE).resize(damageCheckSide(meta.width), damageCheckSide(meta.height), { fit: 'fill' }).raw().toBuffer());
  } else {
    const source = sharp(bytes, { ...DECODE, autoOrient: true });
    const pipeline = opaque ? source.flatten({ background: '#ffffff' }).toColourspace(meta.channels <= 2 ? 'b-w' : 'srgb') : source;
    out = await decoding(format, () =>
      (kind === 'png' ? pipeline.png({ compressionLevel: 6 }) : pipeline.jpeg({ quality: JPEG_QUALITY, chromaSubsampling: '4:4:4' })).toBuffer(),
    );
  }
  if (kind === 'jpeg') hold(images, out.byteLength);
  try {
    return kind === 'png' ? await doc.png(out) : await doc.jpeg(out);
  } catch (error) {
    // pdf-lib re-reads what libvips decoded or wrote: a failure here is ours or the library's, but only the input can avoid it.
    throw new ImageRejection('INVALID_IMAGE', 'the image was decoded but cannot be embedded in a PDF; re-save it as a baseline JPEG or a PNG', (error as Error).message);
  }
}

/** libvips shrinks a side by at most this factor in one step (reduceh/reducev's hshrink and vshrink). */
const MAX_SHRINK = 1_000_000;

/**
 * A side of the damage check's decode: 8 pixels, or more for a side so long
 * that 8 would need a larger shrink than libvips takes (a valid 9,000,000 x 1
 * PNG was refused as damaged: "reduceh: parameter hshrink not set").
 */
function damageCheckSide(pixels: number): number {
  return Math.max(8, Math.ceil(pixels / MAX_SHRINK));
}

function hold(images: DocumentImages, bytes: number): void {
  if (images.held + bytes > MAX_DOCUMENT_IMAGE_BYTES) {
    throw new ImageRejection(
      'IMAGE_TOO_LARGE',
      `the document's images would hold more than ${MAX_DOCUMENT_IMAGE_BYTES} bytes (PNG counts 4 bytes a pixel); use fewer or smaller images, or JPEG`,
    );
  }
  images.held += bytes;
}

/**
 * Runs a libvips call (and the header check), turning refusals of the shared
 * check (untrusted/image-bytes.ts) into rejections with this engine's codes.
 * `format` is undefined while the container is not known yet.
 */
async function decoding<T>(format: RasterFormat | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return format === undefined ? await run() : await decodingImage(format, run);
  } catch (error) {
    if (!(error instanceof ImageRefusal)) throw error;
    if (error.kind === 'too-many-pixels') throw new ImageRejection('IMAGE_TOO_LARGE', `the image has more than ${MAX_IMAGE_PIXELS} pixels`, error.cause);
    if (error.kind === 'unsupported') throw new ImageRejection('UNSUPPORTED_IMAGE', `the image ${error.message}`, error.cause);
    throw new ImageRejection('INVALID_IMAGE', `the image ${error.message}`, error.cause);
  }
}

function sampleBytes(depth: Metadata['depth']): number {
  if (depth === 'uchar' || depth === 'char') return 1;
  if (depth === 'ushort' || depth === 'short') return 2;
  if (depth === 'uint' || depth === 'int' || depth === 'float') return 4;
  return 16;
}

// --- recognising the bytes --------------------------------------------------

/** APNG (an acTL chunk before the image data): pdf-lib refuses it, so it is converted (first frame). */
function isAnimatedPng(b: Uint8Array): boolean {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let pos = 8; pos + 8 <= b.length; ) {
    const type = String.fromCharCode(b[pos + 4] ?? 0, b[pos + 5] ?? 0, b[pos + 6] ?? 0, b[pos + 7] ?? 0);
    if (type === 'acTL') return true;
    if (type === 'IDAT') return false;
    pos += 12 + view.getUint32(pos);
  }
  return false;
}

/**
 * Whether a PDF viewer can draw the JPEG as it is (DCTDecode, ISO 32000-1
 * 7.4.8): baseline, extended or progressive Huffman coding, 8-bit, grey or
 * YCbCr/RGB. CMYK is converted too, because Adobe and other CMYK JPEGs
 * disagree on inversion and pdf-lib inverts all of them.
 */
function pdfCanHoldJpeg(b: Uint8Array): boolean {
  let pos = 2;
  while (pos + 4 <= b.length && b[pos] === 0xff) {
    const marker = b[pos + 1] as number;
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const precision = b[pos + 4];
      const components = b[pos + 9];
      return marker <= 0xc2 && precision === 8 && (components === 1 || components === 3);
    }
    if (marker === 0xda) return false; // image data before any frame header
    pos += 2 + (((b[pos + 2] as number) << 8) | (b[pos + 3] as number));
  }
  return false;
}

// --- placement ----------------------------------------------------------------

const ALIGN_SHARE = { left: 0, center: 0.5, right: 1 } as const;

/**
 * The box an image occupies, in points: both sides as given; one side given
 * and the other from the aspect ratio; or neither, the intrinsic size at 72
 * dpi (a pixel a point) scaled down to `maxWidth` when wider.
 */
export function boxSize(image: Image, box: ImageBox, maxWidth: number): readonly [number, number] {
  const ratio = image.height / image.width;
  if (box.width !== undefined && box.height !== undefined) return [box.width, box.height];
  if (box.width !== undefined) return [box.width, box.width * ratio];
  if (box.height !== undefined) return [box.height / ratio, box.height];
  const width = Math.min(image.width, maxWidth);
  return [width, width * ratio];
}

/**
 * Draws the image in a box (points from the page's top-left): `fill`
 * stretches it to the box; `contain` scales it to fit inside, centred;
 * `cover` scales it to cover the box, centred, and clips what overflows.
 */
export function drawImage(canvas: PageCanvas, image: Image, x: number, top: number, width: number, height: number, fit: ImageBox['fit'] = 'contain'): void {
  if (fit === 'fill') {
    canvas.image(image, x, top, width, height);
    return;
  }
  const scale = (fit === 'cover' ? Math.max : Math.min)(width / image.width, height / image.height);
  const drawnWidth = image.width * scale;
  const drawnHeight = image.height * scale;
  const left = x + (width - drawnWidth) / 2;
  const drawnTop = top + (height - drawnHeight) / 2;
  // Clip only when something overflows by more than rounding (0.01 pt is the canvas's precision).
  const clip = fit === 'cover' && (drawnWidth - width > 0.01 || drawnHeight - height > 0.01);
  if (clip) canvas.clip(x, top, width, height);
  canvas.image(image, left, drawnTop, drawnWidth, drawnHeight);
  if (clip) canvas.restore();
}

/** Places an image in the flow at the cursor per `box` (page break when needed), advancing the cursor. */
export function flowImage(context: RenderContext, image: Image, box: ImageBox): void {
  const { flow } = context;
  let [width, height] = boxSize(image, box, flow.width);
  // Wider than the column or taller than a whole page: scaled down, box proportions kept.
  const pageHeight = Math.max(1, flow.contentHeight);
  const scale = Math.min(1, flow.width / width, pageHeight / height);
  width *= scale;
  height *= scale;
  flow.ensure(height);
  const x = flow.left + (flow.width - width) * ALIGN_SHARE[box.align ?? 'left'];
  drawImage(flow.page, image, x, flow.cursor, width, height, box.fit);
  flow.advance(height);
}
