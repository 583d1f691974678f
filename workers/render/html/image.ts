// <img> sources and sizes. Only base64 data: URIs are drawn: an http(s),
// relative or file: src is skipped without any request, so a document can
// never make the worker fetch anything or reveal that it rendered.
import type { Image } from '../../seams/pdf.js';
import { decodeBase64 } from '../../task/base64.js';
import { RenderError } from '../errors.js';
import { boxSize, MAX_IMAGE_BYTES } from '../images.js';

/** `data:image/<type>[;param=value]*;base64,<data>` (RFC 2397). */
const DATA_URI = /^data:image\/([a-z0-9.+-]+)((?:;[^,;]*)*);base64,/i;


/**
 * The image bytes of an <img src>, or undefined when the src is not an
 * image data: URI we draw. SVG is skipped like the <svg> element (it is a
 * document, not a picture); other types go to images.ts, which reads PNG,
 * JPEG, WebP, GIF, TIFF and AVIF and rejects the rest with a reason.
 * Throws RenderError for data that is not base64.
 */
export function imageBytes(src: string, field: string): Uint8Array | undefined {
  // Browsers strip leading and trailing ASCII whitespace from URL attributes.
  const value = src.trim();
  const match = DATA_URI.exec(value);
  if (match === null || (match[1] as string).toLowerCase() === 'svg+xml') return undefined;
  const decoded = decodeBase64(value.slice(match[0].length), MAX_IMAGE_BYTES);
  if (!(decoded instanceof Uint8Array)) {
    const code = decoded.problem === 'too-large' ? 'IMAGE_TOO_LARGE' : 'INVALID_IMAGE';
    throw new RenderError([{ field, code, message: `an <img> data: URI ${decoded.problem === 'too-large' ? 'is too large' : 'is not valid base64'} (${decoded.message})` }]);
  }
  return decoded;
}

/** A width or height attribute: CSS pixels (0.75 pt each); percentages and junk are ignored, as for a missing attribute. */
export function pixelsToPoints(attribute: string | undefined): number | undefined {
  if (attribute === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*$/i.exec(attribute);
  if (match === null) return undefined;
  const points = Number(match[1]) * 0.75;
  return points > 0 ? Math.min(points, 14_400) : undefined;
}

/**
 * The drawn size: the attributes, else the intrinsic size in CSS pixels
 * (0.75 pt each, as a browser shows an image with no width or height), scaled
 * down to the box width and the page height.
 */
export function fitImage(image: Image, width: number | undefined, height: number | undefined, maxWidth: number, maxHeight: number): readonly [number, number] {
  const intrinsic = width === undefined && height === undefined ? image.width * 0.75 : undefined;
  const [w, h] = boxSize(image, { width: width ?? intrinsic, height }, maxWidth);
  const scale = Math.min(1, maxWidth / w, maxHeight / h);
  return [w * scale, h * scale];
}
