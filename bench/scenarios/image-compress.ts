// The image scenario's input: a typical request of POST /v1/image/compress
// (a 3000 x 2000 photo as JPEG, to 1200 wide at quality 80, Lanczos, sRGB),
// compared in pairs.ts against the same sharp pipeline on a bare pool fed
// raw bytes and against one `vips thumbnail` process per request.
import { photoPixels } from '../../test/fixtures/photo.js';
import sharp from 'sharp';

export const IMAGE_PATH = '/v1/image/compress';
export const WIDTH = 1200;
export const QUALITY = 80;

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
