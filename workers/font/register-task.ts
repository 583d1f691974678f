// The `font-register` task (PUT /api/v1/fonts/{family}): a font file in,
// checked exactly as set_font checks font data (the sfnt table checks, a
// trial layout and a trial subset, workers/seams/fonts-parse.ts), so a font
// that registers is one every later render can embed. WOFF and WOFF2 are
// unpacked to the sfnt font they wrap first: that is what gets stored, so no
// render unpacks it again. The answer is the stored bytes plus what the
// font list shows (content hash, glyph count).
import { performance } from 'node:perf_hooks';
import type { FontRegisterOptions, Outcome, RegisteredFontValue, TaskInput } from '../protocol.js';
import { FontError, parseFont } from '../seams/fonts-parse.js';
import { isStandardFamily, standardFamilyOf } from '../render/fonts.js';
import { movable, ownBuffer } from '../task/transfer.js';
import { faceOf, NoSuchFace } from './collection-face.js';
import { FontTooLargeError, formatOf, unwrap } from './web-fonts.js';

const FIELD = '(body)';

/**
 * What set_font's `family` accepts (1-64 characters once trimmed), starting
 * with a letter or digit, without control or path characters, so a family
 * reads the same in a URL, a log line and a request.
 */
const FAMILY = /^[\p{L}\p{N}][\p{L}\p{N}\p{M} ._+-]{0,63}$/u;

/** Why `family` cannot be registered, or undefined. */
export function familyProblem(family: string): { code: string; message: string } | undefined {
  if (family.length > 64 || !FAMILY.test(family) || family.trimEnd() !== family) {
    return { code: 'INVALID_FORMAT', message: 'a family is 1-64 letters, digits, spaces and . _ + -, starting with a letter or digit and not ending in a space' };
  }
  const lower = family.toLowerCase();
  const standard = (name: string) => isStandardFamily(name) || standardFamilyOf(name) !== undefined;
  if (standard(family) || ['helvetica', 'times', 'courier', 'symbol', 'zapfdingbats'].some((name) => lower === name || lower.startsWith(`${name}-`))) {
    return { code: 'INVALID_VALUE', message: `"${family}" names a standard font; register a custom font under another family name` };
  }
  return undefined;
}

export async function fontRegister(input: TaskInput<FontRegisterOptions>): Promise<Outcome<RegisteredFontValue>> {
  const started = performance.now();
  const timings = () => ({ taskMs: performance.now() - started });
  const invalid = (code: string, message: string, cause?: string): Outcome<RegisteredFontValue> => ({
    ok: false,
    code: 'invalid',
    detail: `The font cannot be registered: ${message}.`,
    errors: [{ field: FIELD, code, message }],
    ...(cause === undefined ? {} : { cause }),
    timings: timings(),
  });
  const named = familyProblem(input.options.family);
  if (named !== undefined) {
    return { ok: false, code: 'invalid', detail: `The font cannot be registered: ${named.message}.`, errors: [{ field: 'family', ...named }], timings: timings() };
  }
  const received = new Uint8Array(input.body, 0, input.length);
  if (received.byteLength === 0) return invalid('REQUIRED', 'the body is empty; send the font file as the body');
  let sfnt: Uint8Array;
  try {
    sfnt = faceOf(await unwrap(received, input.options.maxFontBytes), input.options.faceIndex);
  } catch (error) {
    if (error instanceof NoSuchFace) {
      return { ok: false, code: 'invalid', detail: `The font cannot be registered: face_index ${error.message}.`, errors: [{ field: 'face_index', code: 'OUT_OF_RANGE', message: error.message }], timings: timings() };
    }
    if (error instanceof FontTooLargeError) return invalid('TOO_LARGE', error.message);
    if (error instanceof FontError) return invalid('INVALID_FONT', error.message);
    throw error;
  }
  if (sfnt.byteLength > input.options.maxFontBytes) {
    return invalid('TOO_LARGE', `the font is ${sfnt.byteLength} bytes, over the ${input.options.maxFontBytes} a font may have (PLATEN_MAX_FONT_BYTES)`);
  }
  // The parse is cached by content hash for this worker's renders, so it keeps bytes of its own: what is
  // sent back is transferred (detached here), which once left every later render of the font failing.
  const sfntSent = sfnt === received;
  const bytes = sfntSent ? received.slice() : sfnt;
  const stored = sfntSent ? received : sfnt.slice();
  let parsed;
  try {
    parsed = parseFont(bytes);
  } catch (error) {
    if (!(error instanceof FontError)) throw error;
    return invalid('INVALID_FONT', error.message, error.cause === undefined ? undefined : String(error.cause));
  }
  return movable({
    ok: true,
    value: {
      body: ownBuffer(stored),
      mediaType: 'font/sfnt',
      font: { sha256: parsed.hash, glyphs: parsed.numGlyphs, name: parsed.name.slice(0, 200), format: formatOf(received) },
    },
    timings: timings(),
  });
}
