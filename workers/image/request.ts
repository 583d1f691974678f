// The request of POST /v1/image/compress (accelerator spec, section 4),
// validated with valibot. Objects are strict, as in the render API: a typo
// ("max_widht") silently ignored would return an image the client did not
// ask for.
import * as v from 'valibot';
import { base64Member } from '../task/decoded-member.js';

/** What the endpoint writes. */
export const OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `jpg` is accepted for `jpeg`, as file names spell it; the response says `jpeg`. */
const FORMAT_NAMES = [...OUTPUT_FORMATS, 'jpg'] as const;

/**
 * Resampling kernels, as libvips names them, plus the spec's `lanczos`
 * (Lanczos with three lobes, libvips's default and the usual meaning).
 */
export const RESAMPLE_KERNELS = {
  nearest: 'nearest',
  linear: 'linear',
  cubic: 'cubic',
  mitchell: 'mitchell',
  lanczos: 'lanczos3',
  lanczos2: 'lanczos2',
  lanczos3: 'lanczos3',
} as const;
export type Kernel = (typeof RESAMPLE_KERNELS)[keyof typeof RESAMPLE_KERNELS];
const RESAMPLE_NAMES = Object.keys(RESAMPLE_KERNELS) as Array<keyof typeof RESAMPLE_KERNELS>;

/** `rgb` is accepted for `srgb`: an untagged RGB image on the web is sRGB. */
export const COLOR_SPACES = ['srgb', 'rgb', 'cmyk', 'b-w'] as const;

/**
 * Default quality per lossy format: sharp's (libvips's) own defaults. AVIF's
 * scale is not JPEG's: 50 there looks about like JPEG's 80 at a smaller
 * size. PNG is lossless unless a quality is given (see plan.ts).
 */
export const DEFAULT_QUALITY = { jpeg: 80, webp: 80, avif: 50 } as const;

/** A bound on max_width / max_height, so that they stay exact integers; the output is never larger than the input anyway. */
export const MAX_DIMENSION = 1_000_000;

const whole = (min: number, max: number) => v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(min, `must be at least ${min}`), v.maxValue(max, `must be at most ${max}`));

export const CompressRequest = v.strictObject({
  image_data: base64Member(v.pipe(v.string(), v.minLength(1, 'must be base64 image data'))),
  format: v.optional(v.picklist(FORMAT_NAMES, `must be one of ${OUTPUT_FORMATS.join(', ')} (jpg is read as jpeg)`)),
  options: v.optional(
    v.strictObject({
      quality: v.optional(whole(1, 100)),
      max_width: v.optional(whole(1, MAX_DIMENSION)),
      max_height: v.optional(whole(1, MAX_DIMENSION)),
      resample: v.optional(v.picklist(RESAMPLE_NAMES, `must be one of ${RESAMPLE_NAMES.join(', ')}`)),
      color_space: v.optional(v.picklist(COLOR_SPACES, `must be one of ${COLOR_SPACES.join(', ')}`)),
      keep_metadata: v.optional(v.boolean()),
      animated: v.optional(v.boolean()),
    }),
    {},
  ),
});

export type CompressRequest = v.InferOutput<typeof CompressRequest>;
export type CompressOptions = CompressRequest['options'];
