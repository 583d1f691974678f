// The `image-compress` task (POST /v1/image/compress): base64 image in,
// re-encoded image out, resized to fit max_width x max_height (never
// enlarged), upright (EXIF orientation applied), in the requested format,
// quality and colour space, metadata stripped unless asked for.
//
// One libvips pipeline per request, streamed where it can be: a JPEG shrunk
// by half or more is scaled down while it is decoded (DCT scaling), so a
// 3000 x 2000 photo cut to 1200 wide never exists in memory at full size. Every libvips failure on the input's pixels (a
// truncated file, corrupt data: failOn 'warning', the strictest level, which
// sharp recommends for untrusted input) becomes 400 invalid-image-data; the
// pipeline is built outside that net, so a mistake of ours stays a 500.
import type { ImageCompressOptions } from '../protocol.js';
import { Base64Answer } from '../task/json-answer.js';
import { TaskFailure, jsonTask, type JsonResult } from '../task/json-task.js';
import sharp, { type Sharp, type SharpOptions } from '../seams/vips.js';
import { libvipsMessage } from '../untrusted/image-bytes.js';
import { checkPixels, inputProblem, readInput, type InputImage } from './input.js';
import { plan, type Plan } from './plan.js';
import { CompressRequest } from './request.js';

/** The task's work once the request is read; exported for the bench's whole-body baseline (bench/binary-fields.ts). */
export async function compressImage(request: CompressRequest, options: ImageCompressOptions): Promise<JsonResult> {
  const input = await readInput(request.image_data, options);
  const chosen = plan(request, input);
  checkPixels(input, chosen.allFrames, options.maxImagePixels);
  const { data, info } = await encode(pipeline(input, chosen, options), input, chosen, options);
  return {
    data: {
      image_data: new Base64Answer(data),
      original_size_bytes: input.bytes.byteLength,
      compressed_size_bytes: data.byteLength,
      width: info.width,
      // An animated result is a strip of frames to libvips; its height is one frame's.
      height: chosen.allFrames && info.pageHeight !== undefined ? info.pageHeight : info.height,
      format: chosen.format,
    },
  };
}

export const imageCompress = jsonTask(CompressRequest, compressImage, { binaryFields: ['image_data'] });

const WHITE = { r: 255, g: 255, b: 255 };

function pipeline(input: InputImage, chosen: Plan, options: ImageCompressOptions): Sharp {
  const decode: SharpOptions = {
    limitInputPixels: options.maxImagePixels,
    failOn: 'warning',
    autoOrient: true,
    // The first frame or page only, unless every frame is kept (animated WebP out).
    ...(chosen.allFrames ? { pages: -1 } : { pages: 1, page: 0 }),
  };
  // When the pool gives up on a task at PLATEN_TIMEOUT_MS it terminates the
  // thread, but a libvips operation runs on libuv's process-wide threadpool
  // and would carry on, burning a core, until it ends by itself (measured:
  // Worker.terminate() returned only once the 15 s AVIF encode it was
  // running had finished).
  // libvips's own timeout stops it around the same time. It works on
  // streamed pipelines (decoding, resizing, JPEG, WebP, lossless PNG: a
  // 10000 x 8000 JPEG re-encode stopped at 1.0 s); the AVIF encoder and PNG
  // quantisation run after the pixels are computed and cannot be stopped.
  // The pool's clock starts first (it counts the queue), so its 504 comes first.
  const image = sharp(input.bytes, decode).timeout({ seconds: Math.ceil(options.timeoutMs / 1000) });
  if (chosen.maxWidth !== undefined || chosen.maxHeight !== undefined) {
    image.resize({ width: chosen.maxWidth, height: chosen.maxHeight, fit: 'inside', withoutEnlargement: true, kernel: chosen.kernel });
  }
  if (chosen.flatten) image.flatten({ background: WHITE });
  if (chosen.keepMetadata) image.keepMetadata();
  switch (chosen.colorSpace) {
    case 'srgb':
      // With metadata kept, libvips would keep the input's profile and leave the
      // pixels in it; converting to sRGB and tagging the result keeps both true.
      if (chosen.keepMetadata) image.withIccProfile('srgb');
      else image.toColourspace('srgb');
      break;
    case 'b-w':
      image.toColourspace('b-w');
      break;
    case 'cmyk':
      // libvips converts through its built-in CMYK profile. The profile is not
      // embedded: it is 961,644 bytes, more than most compressed images.
      image.toColourspace('cmyk');
      break;
  }
  switch (chosen.format) {
    case 'jpeg':
      return image.jpeg({ quality: chosen.quality });
    case 'webp':
      return image.webp({ quality: chosen.quality });
    case 'avif':
      return image.avif({ quality: chosen.quality });
    case 'png':
      // zlib level 6 (sharp's default): level 9 saved 4% for 48% more time on a synthetic 1200 x 800 photo.
      return chosen.quality === undefined ? image.png({ compressionLevel: 6 }) : image.png({ quality: chosen.quality, palette: true });
  }
}

async function encode(image: Sharp, input: InputImage, chosen: Plan, options: ImageCompressOptions) {
  try {
    return await image.toBuffer({ resolveWithObject: true });
  } catch (error) {
    // Only without a pool (a direct call): with one, the pool's timeout has answered already.
    if (/^timeout: \d+% complete/.test(libvipsMessage(error))) {
      const message = `Processing took longer than the ${options.timeoutMs} ms limit (PLATEN_TIMEOUT_MS); send a smaller image.`;
      throw new TaskFailure('invalid', message, [{ field: 'image_data', code: 'TOO_LARGE', message }]);
    }
    // An output over a format's size limit (WebP: 16383 pixels a side) is the request's doing, not the image's.
    if (/too large for the \w+ format/i.test(libvipsMessage(error))) {
      const message = `the output is larger than ${chosen.format} can hold (WebP: 16383 pixels a side, JPEG: 65535); set options.max_width and options.max_height, or choose another format`;
      throw new TaskFailure('invalid', `format: ${message}`, [{ field: 'format', code: 'INVALID_VALUE', message }], libvipsMessage(error));
    }
    throw inputProblem(input.format, error);
  }
}
