// What the output will be, decided from the request and the input's header
// before any pixel is decoded: format, quality, colour space, frames. The
// spec shows one request (jpeg, lanczos, rgb) and leaves every default to us;
// each decision below is documented in the README and the contract.
import { TaskFailure } from '../task/json-task.js';
import type { InputImage } from './input.js';
import { DEFAULT_QUALITY, RESAMPLE_KERNELS, type CompressRequest, type Kernel, type OutputFormat } from './request.js';

export type ColorSpace = 'srgb' | 'b-w' | 'cmyk';

export interface Plan {
  readonly format: OutputFormat;
  /** undefined: PNG, lossless. A PNG with a quality is palette-quantised (libimagequant). */
  readonly quality: number | undefined;
  readonly colorSpace: ColorSpace;
  readonly maxWidth: number | undefined;
  readonly maxHeight: number | undefined;
  readonly kernel: Kernel;
  /** Keep EXIF (its Orientation then 1), XMP, IPTC and, for sRGB output, a colour profile. */
  readonly keepMetadata: boolean;
  /** Every frame of an animated input is decoded and written (animated WebP). */
  readonly allFrames: boolean;
  /** JPEG holds no alpha: transparent areas become white, not libvips's black. */
  readonly flatten: boolean;
}

export function plan(request: CompressRequest, input: InputImage): Plan {
  const options = request.options;
  const animated = options.animated === true && input.frames > 1;
  const requested = request.format === 'jpg' ? 'jpeg' : request.format;
  const format = requested ?? defaultFormat(input, animated);
  if (animated && format !== 'webp') {
    throw TaskFailure.field(
      'options.animated',
      'INVALID_VALUE',
      `keeping all ${input.frames} frames needs format webp (${format} holds one frame); set format to webp, or leave animated false for the first frame`,
    );
  }
  const colorSpace = options.color_space === undefined ? (input.greyscale ? 'b-w' : 'srgb') : options.color_space === 'rgb' ? 'srgb' : options.color_space;
  if (colorSpace === 'cmyk' && format !== 'jpeg') {
    const why = requested === undefined ? `without a format the output is ${format}, like the input` : `${format} holds no CMYK`;
    throw TaskFailure.field('options.color_space', 'INVALID_VALUE', `cmyk needs format jpeg (${why}); set format to jpeg, or choose srgb or b-w`);
  }
  return {
    format,
    quality: options.quality ?? (format === 'png' ? undefined : DEFAULT_QUALITY[format]),
    colorSpace,
    maxWidth: options.max_width,
    maxHeight: options.max_height,
    kernel: RESAMPLE_KERNELS[options.resample ?? 'lanczos3'],
    keepMetadata: options.keep_metadata === true,
    allFrames: animated,
    flatten: format === 'jpeg' && input.hasAlpha,
  };
}

/**
 * Without `format`, the input's own format when the endpoint writes it
 * (AVIF stays AVIF, PNG stays PNG); a GIF becomes PNG (lossless, like the
 * GIF), or WebP when its frames are kept; a TIFF becomes JPEG (a photo or
 * scan, compressed), or PNG when it has transparency.
 */
function defaultFormat(input: InputImage, animated: boolean): OutputFormat {
  switch (input.format) {
    case 'jpeg':
    case 'png':
    case 'webp':
      return input.format;
    case 'heif':
      return 'avif';
    case 'gif':
      return animated ? 'webp' : 'png';
    case 'tiff':
      return input.hasAlpha ? 'png' : 'jpeg';
  }
}
