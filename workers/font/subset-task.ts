// The `font-subset` task (POST /v1/font/subset): a font in, the same font
// with only the glyphs for the asked code points out, subset by HarfBuzz.
//
// Identical requests (same font bytes, face, code points and options) are
// answered from a per-worker cache of results, and say so (meta.cached).
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { FontSubsetOptions } from '../protocol.js';
import { decodeBase64 } from '../task/base64.js';
import { base64Member } from '../task/decoded-member.js';
import { Base64Answer } from '../task/json-answer.js';
import { BoundedMap } from '../util/bounded-map.js';
import { TaskFailure, jsonTask } from '../task/json-task.js';
import { FLAGS, discardSubsetter, subsetter, type SubsetSpec } from './harfbuzz.js';
import { FontError, MAX_FACES, checkFace, faceCount, subsetInfo } from './sfnt-faces.js';
import { FontTooLargeError, unwrap } from './web-fonts.js';

/** Twice the glyphs a font can have (65,535): room for any real font's character map, and validation stays cheap (~50 ms for a full list). */
export const MAX_CODEPOINTS = 131_072;

/** Tables `include_gsub: false` drops: OpenType layout (substitution, positioning, their glyph classes). */
export const LAYOUT_TABLES = ['GSUB', 'GPOS', 'GDEF'] as const;

/**
 * A subset this large leaves a large part of the heap touched, which a
 * WebAssembly memory never gives back: the instance is dropped after it
 * (a new one costs ~3 ms from the compiled module, measured).
 */
const DISCARD_AFTER_BYTES = 8 * 1024 * 1024;

const codepoint = v.pipe(
  v.number('must be a number'),
  v.integer('must be an integer code point'),
  v.minValue(0, 'must be a code point from 0 to 1114111 (U+10FFFF)'),
  v.maxValue(0x10ffff, 'must be a code point from 0 to 1114111 (U+10FFFF)'),
);

export const SubsetRequest = v.strictObject({
  font_data: base64Member(v.string('must be the font as a base64 string')),
  // The count is checked before the items, so an oversized list costs one
  // check; the items stop at the first bad one: reporting each of 131,072 bad
  // items cost 360 ms of a worker (measured), for errors[] that keeps 100.
  codepoints: v.pipe(
    v.array(v.unknown(), 'must be an array of code points'),
    v.minLength(1, 'must list at least one code point'),
    v.maxLength(MAX_CODEPOINTS, `must list at most ${MAX_CODEPOINTS} code points`),
    v.config(v.array(codepoint), { abortEarly: true }),
  ),
  face_index: v.optional(
    v.pipe(v.number('must be a number'), v.integer('must be an integer'), v.minValue(0, 'must be 0 or more'), v.maxValue(MAX_FACES - 1, `must be below ${MAX_FACES}`)),
  ),
  options: v.optional(
    v.strictObject({
      preserve_hints: v.optional(v.boolean('must be true or false')),
      optimize_cff: v.optional(v.boolean('must be true or false')),
      include_gsub: v.optional(v.boolean('must be true or false')),
    }),
  ),
});

type Request = v.InferOutput<typeof SubsetRequest>;
/** The code points deduplicated and sorted: the same set is the same request. */
type Spec = SubsetSpec & { readonly codepoints: Uint32Array };

/** The envelope's `data` (accelerator spec, POST /v1/font/subset): the subset written as base64 straight from its bytes (json-answer.ts). */
export interface SubsetData {
  readonly font_data: Base64Answer;
  readonly original_size_bytes: number;
  readonly subset_size_bytes: number;
  readonly reduction_percent: number;
  readonly included_glyphs: number;
}

/** Results by request identity, per worker, bounded by count and by bytes of subset. */
const results = new BoundedMap<string, SubsetData>(128, 24 * 1024 * 1024, (_key, data) => data.font_data.bytes.byteLength);

export const fontSubset = jsonTask(SubsetRequest, async (request: Request, options: FontSubsetOptions) => {
  const bytes = decodeBase64(request.font_data, options.maxFontBytes);
  if (!(bytes instanceof Uint8Array)) {
    if (bytes.problem === 'too-large') {
      throw new TaskFailure('font-too-large', `font_data is over this server's limit of ${options.maxFontBytes} bytes of font (PLATEN_MAX_FONT_BYTES).`);
    }
    throw TaskFailure.field('font_data', 'INVALID_FORMAT', bytes.message);
  }
  const spec = specOf(request);
  const index = request.face_index ?? 0;
  const fontKey = createHash('sha256').update(bytes).digest('base64');
  const key = `${fontKey} ${index} ${spec.flags} ${spec.drop.join(',')} ${digest(spec.codepoints)}`;
  const hit = results.get(key);
  if (hit !== undefined) return { data: hit, cached: true };

  let subset: { bytes: Uint8Array; glyphs: number };
  try {
    subset = await subsetFace(fontKey, bytes, index, spec, options.maxFontBytes);
  } catch (error) {
    if (error instanceof FontError) throw new TaskFailure('invalid-font-data', `The font cannot be subset: ${error.message}.`, [], error.cause);
    if (error instanceof FontTooLargeError) throw new TaskFailure('font-too-large', `The font is too large: ${error.message} (PLATEN_MAX_FONT_BYTES).`);
    throw error;
  }
  const out = subset.bytes;
  const data: SubsetData = {
    font_data: new Base64Answer(out),
    original_size_bytes: bytes.byteLength,
    subset_size_bytes: out.byteLength,
    reduction_percent: Math.round((1 - out.byteLength / bytes.byteLength) * 10_000) / 100,
    included_glyphs: subset.glyphs,
  };
  results.set(key, data);
  return { data, cached: false };
}, { binaryFields: ['font_data'] });

function specOf(request: Request): Spec {
  const options = request.options ?? {};
  // Defaults: no hinting (it helps rasterizers at small sizes only, and is
  // much of a TrueType font's bytes: 46 % of DejaVu Sans's ASCII subset),
  // CFF subroutines kept, layout kept (dropping it breaks ligatures and
  // every script that needs shaping).
  const flags = (options.preserve_hints === true ? 0 : FLAGS.NO_HINTING) | (options.optimize_cff === true ? FLAGS.DESUBROUTINIZE : 0);
  const drop = options.include_gsub === false ? LAYOUT_TABLES : [];
  const codepoints = Uint32Array.from(new Set(request.codepoints as number[])).sort();
  return { codepoints, flags, drop };
}

function digest(codepoints: Uint32Array): string {
  return createHash('sha256').update(codepoints).digest('base64');
}

/**
 * Subsets face `index` of the font. A failure is tried once more on a fresh
 * heap (the cache of fonts out of the way); failing again, a subset down to
 * .notdef tells a font HarfBuzz cannot read (400) from a subset too big for
 * the heap (422).
 */
async function subsetFace(fontKey: string, bytes: Uint8Array, index: number, spec: Spec, maxFontBytes: number): Promise<{ bytes: Uint8Array; glyphs: number }> {
  let hb = await subsetter(maxFontBytes);
  // A font read before is in the heap already, unpacked: no WOFF work, no copy.
  const font = hb.cached(fontKey) ?? (await unwrap(bytes, maxFontBytes));
  const faces = faceCount(font);
  if (index >= faces) {
    throw TaskFailure.field('face_index', 'OUT_OF_RANGE', faces === 1 ? 'must be 0: the font is not a collection' : `must be below ${faces}: the collection has ${faces} faces`);
  }
  checkFace(font, index);
  let out = hb.subset(fontKey, () => font, index, spec);
  if (out === undefined) {
    // `font` stays readable: a view keeps the discarded heap alive until this request ends.
    discardSubsetter();
    hb = await subsetter(maxFontBytes);
    out = hb.subset(fontKey, () => font, index, spec);
    if (out === undefined) {
      const readable = hb.subset(fontKey, () => font, index, { ...spec, codepoints: [] }) !== undefined;
      discardSubsetter();
      if (!readable) throw new FontError('a table is damaged or in a form the subsetter does not support');
      throw TaskFailure.field(
        'codepoints',
        'TOO_LARGE',
        `subsetting this font to ${spec.codepoints.length} code points needs more than the subsetter's ${Math.round(hb.heapBytes / 1048576)} MiB of memory; ask for fewer code points, or set options.optimize_cff`,
      );
    }
  }
  if (out.byteLength > DISCARD_AFTER_BYTES) discardSubsetter();
  const info = subsetInfo(out);
  // HarfBuzz writes a character map even when nothing maps; one missing means the font's own could not be read.
  if (!info.tables.has('cmap')) throw new FontError("its character map ('cmap') could not be read");
  // .notdef alone: no tool would accept it as a font of anything (fontkit finds no usable cmap in it).
  if (info.numGlyphs <= 1) {
    throw TaskFailure.field('codepoints', 'INVALID_VALUE', `the font${faces > 1 ? ` (face ${index})` : ''} has a glyph for none of these code points`);
  }
  return { bytes: out, glyphs: info.numGlyphs };
}
