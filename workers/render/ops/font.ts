// set_font: the text style for what follows. A family is a standard one
// (Helvetica, Times, Courier, Symbol, ZapfDingbats, or any of the 14
// standard names), or a custom family registered here by sending its
// data (TrueType or OpenType, WOFF or WOFF2, or a face of a collection,
// unpacked here as font registration does); later set_font calls refer to it by name, and
// bold/italic pick the variants registered for it. A family sent with no
// data may also be one the client registered once with
// PUT /api/v1/fonts/{family} (registered-fonts.ts).
import * as v from 'valibot';
import { BoundedMap } from '../../util/bounded-map.js';
import { FontError } from '../../seams/pdf.js';
import { color, fontSize } from '../fields.js';
import { decodeBase64Field, RenderError } from '../errors.js';
import type { OperationType, RenderContext } from '../context.js';
import { isStandardFamily, standardFamilyNamed, standardFamilyOf } from '../fonts.js';
import { faceOf, NoSuchFace } from '../../font/collection-face.js';
import { MAX_FACES } from '../../font/sfnt-faces.js';
import { FontTooLargeError, unwrap } from '../../font/web-fonts.js';

/** Fonts larger than this are refused; CJK fonts are 15-20 MB. */
export const MAX_FONT_BYTES = 32 * 1024 * 1024;

const schema = v.strictObject({
  type: v.literal('set_font'),
  family: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
  /** Font bytes (base64) registering `family` (with the bold/italic given). Decoded in run(), through a memo. */
  data: v.optional(v.pipe(v.string(), v.maxLength(Math.ceil((MAX_FONT_BYTES * 4) / 3) + 1024))),
  /** The face of a collection in `data` (as /v1/font/subset's face_index); 0, the first, when not given. */
  face_index: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_FACES - 1))),
  bold: v.optional(v.boolean()),
  italic: v.optional(v.boolean()),
  size: v.optional(fontSize),
  color: v.optional(color),
  line_height: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0.5), v.maxValue(5))),
});

export const setFont: OperationType<typeof schema> = {
  schema,
  async run(op, context, at) {
    const style = context.style;
    // A standard family in any case ("helvetica"), as page sizes are; a custom family's name is kept as sent.
    let family = op.family === undefined ? style.family : (standardFamilyNamed(op.family) ?? op.family);
    let bold = op.bold ?? style.bold;
    let italic = op.italic ?? style.italic;
    // A standard font name ("Times-BoldItalic", in any case) names a family and a variant.
    const exact = standardFamilyOf(family);
    if (exact !== undefined && family !== exact.family) {
      family = exact.family;
      bold = op.bold ?? exact.bold;
      italic = op.italic ?? exact.italic;
    }
    if (op.data !== undefined) {
      if (exact !== undefined || isStandardFamily(family)) {
        throw new RenderError([{ field: `${at}.family`, code: 'INVALID_VALUE', message: `"${family}" is a standard font; give a custom font another family name` }]);
      }
      try {
        const bytes = await fontData(op.data, op.face_index ?? 0, at);
        await context.fonts.register({ family, bold, italic }, bytes);
      } catch (error) {
        if (!(error instanceof FontError)) throw error;
        throw new RenderError([{ field: `${at}.data`, code: 'INVALID_FONT', message: error.message }], error.cause);
      }
    } else if (op.face_index !== undefined) {
      throw new RenderError([{ field: `${at}.face_index`, code: 'INVALID_VALUE', message: 'chooses a face of the font sent in data; without data, register the face you want (PUT /api/v1/fonts/{family}?face_index=N)' }]);
    } else if (!context.fonts.isKnown(family) && !(await loadRegistered(context, family, at))) {
      throw new RenderError([
        {
          field: `${at}.family`,
          code: 'UNKNOWN_FONT',
          message: `"${family}" is neither a standard font, a family sent earlier in this request with data, nor a font this client registered (GET /api/v1/fonts lists them)`,
        },
      ]);
    }
    context.style = {
      ...style,
      family,
      bold,
      italic,
      size: op.size ?? style.size,
      color: op.color ?? style.color,
      lineHeight: op.line_height ?? style.lineHeight,
    };
  },
};

/** A registered font was checked when it was registered; one that still fails (a damaged glyph) is named on this operation. */
async function loadRegistered(context: RenderContext, family: string, at: string): Promise<boolean> {
  try {
    return await context.fonts.loadRegistered(family);
  } catch (error) {
    if (!(error instanceof FontError)) throw error;
    throw new RenderError([{ field: `${at}.family`, code: 'INVALID_FONT', message: `the registered font "${family}": ${error.message}` }], error.cause);
  }
}

/**
 * Clients send the same font with every request; decoding, checking and
 * hashing 700 KB of base64 each time dominated a custom-font page. The
 * font as the engine reads it (decoded, a WOFF or WOFF2 unpacked, the face
 * taken out of a collection) is kept per worker by its base64 text (a
 * string-keyed Map hashes natively), and the PDF seam recognises the same
 * bytes object without hashing again. Bounded by total size, the base64
 * keys included (one byte per character: base64 is Latin-1, which V8
 * stores that way).
 */
const DECODED_FONTS_MAX = 64;
const DECODED_FONTS_MAX_BYTES = 128 * 1024 * 1024;
const decodedFonts = new BoundedMap<string, { readonly face: number; readonly bytes: Uint8Array }>(
  DECODED_FONTS_MAX,
  DECODED_FONTS_MAX_BYTES,
  (base64, font) => base64.length + font.bytes.byteLength,
);

/** The single font set_font's `data` holds; RenderError for data that is no base64 or too large, FontError for data that is no font. */
async function fontData(base64: string, face: number, at: string): Promise<Uint8Array> {
  const cached = decodedFonts.get(base64);
  if (cached?.face === face) return cached.bytes;
  const decoded = decodeBase64Field(base64, MAX_FONT_BYTES, `${at}.data`, { 'too-large': 'TOO_LONG', invalid: 'INVALID_FORMAT' });
  let bytes: Uint8Array;
  try {
    bytes = faceOf(await unwrap(decoded, MAX_FONT_BYTES), face);
  } catch (error) {
    if (error instanceof NoSuchFace) throw new RenderError([{ field: `${at}.face_index`, code: 'OUT_OF_RANGE', message: error.message }]);
    if (error instanceof FontTooLargeError) throw new RenderError([{ field: `${at}.data`, code: 'TOO_LONG', message: `${error.message} (a font may have ${MAX_FONT_BYTES} bytes)` }]);
    throw error;
  }
  decodedFonts.set(base64, { face, bytes });
  return bytes;
}
