// The bundled faces for the scripts DejaVu does not draw: Hebrew, the Indic
// scripts, Thai, Lao, Khmer, Myanmar, Ethiopic, Chinese (simplified and
// traditional), Japanese and Korean, and last emoji (Noto Emoji, the
// monochrome outlines: a PDF font draws in one colour), from the Noto
// families as Fontsource packages them on npm (OFL-1.1, WOFF2). A face is read, decoded and parsed
// only when a run needs one of its characters (once per worker: the bytes
// object is kept so the seam's parse cache hits), so a Latin document never
// pays for them; and like every custom font only a subset is embedded.
//
// Fontsource splits each family into subsets with the Unicode ranges of each
// in its unicode.json: the script's own subset ("hebrew", "thai", ...) is
// what we load. The CJK families have one large subset of the common
// characters ("chinese-simplified": 7,947 code points, 1.1 MB of WOFF2) and
// ~100 numbered slices ("[119]") holding the rest: the large one first, a
// slice only for a character outside it. Noto Emoji is numbered slices only.
// Emoji come after every text face, so a character a text face has (a digit,
// ©, an arrow) is never drawn as an emoji.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { unwrap, WOFF2_MAX_DECODED } from '../font/web-fonts.js';

export interface ScriptFace {
  /** `noto-sans-thai/thai`, `noto-sans-sc/[119]`, `noto-emoji/[3]`: package and subset, also the cache key. */
  readonly id: string;
  /** Whether the face may have the code point, from its published ranges; its cmap has the last word. */
  mayCover(codePoint: number): boolean;
  /** The face as sfnt bytes; the same object on every call in this worker. */
  load(bold: boolean): Promise<Uint8Array>;
}

/** The Han-script families in the order a document's language prefers them (Han characters differ in form by region). */
type HanFamily = 'sc' | 'tc' | 'jp' | 'kr';

/** Each script's Fontsource family (`noto-sans-<script>`) and the subset of it with the script's characters: the script's own name. */
const SCRIPTS = ['hebrew', 'devanagari', 'bengali', 'gurmukhi', 'gujarati', 'oriya', 'tamil', 'telugu', 'kannada', 'malayalam', 'sinhala', 'thai', 'lao', 'khmer', 'myanmar', 'ethiopic'];

const EMOJI = 'noto-emoji';

const HAN_SUBSETS: Record<HanFamily, string> = { sc: 'chinese-simplified', tc: 'chinese-traditional', jp: 'japanese', kr: 'korean' };

/**
 * The faces to try, in order, for a document in `language` (BCP 47, may be
 * undefined): every script family, then the Han families with the
 * language's own first (zh-Hant/-TW/-HK/-MO → traditional, ja → Japanese,
 * ko → Korean, otherwise simplified Chinese), then emoji.
 */
export function scriptFaces(language: string | undefined): readonly ScriptFace[] {
  const key = hanPreference(language).join();
  let faces = facesByPreference.get(key);
  if (faces === undefined) {
    faces = [...SCRIPTS.map((script) => face(`noto-sans-${script}`, script)), ...hanPreference(language).flatMap(hanFaces), ...slices(EMOJI).map((subset) => face(EMOJI, subset))];
    facesByPreference.set(key, faces);
  }
  return faces;
}

const facesByPreference = new Map<string, readonly ScriptFace[]>();

function hanPreference(language: string | undefined): HanFamily[] {
  const tag = (language ?? '').toLowerCase();
  let first: HanFamily = 'sc';
  if (/^ja\b/.test(tag)) first = 'jp';
  else if (/^ko\b/.test(tag)) first = 'kr';
  else if (/^zh-(hant|tw|hk|mo)\b/.test(tag)) first = 'tc';
  return [first, ...(['sc', 'tc', 'jp', 'kr'] as const).filter((family) => family !== first)];
}

/** A Han family: its large common subset (which may have any code point of the family's slices), then each slice. */
function hanFaces(han: HanFamily): ScriptFace[] {
  const family = `noto-sans-${han}`;
  const numbered = slices(family);
  const all = numbered.flatMap((subset) => rangesOf(family, subset)).sort((a, b) => a[0] - b[0]);
  return [face(family, HAN_SUBSETS[han], all), ...numbered.map((subset) => face(family, subset))];
}

/** A family's numbered subsets ("[0]", "[1]", ...). */
function slices(family: string): string[] {
  return Object.keys(unicodeRanges(family)).filter((subset) => subset.startsWith('['));
}

const faces = new Map<string, ScriptFace>();

function face(family: string, subset: string, ranges = rangesOf(family, subset)): ScriptFace {
  const id = `${family}/${subset}`;
  let found = faces.get(id);
  if (found === undefined) {
    const bytes = new Map<boolean, Promise<Uint8Array>>();
    found = {
      id,
      mayCover: (codePoint) => inRanges(ranges, codePoint),
      load: (bold) => {
        let loading = bytes.get(bold);
        if (loading === undefined) bytes.set(bold, (loading = decode(family, subset, bold)));
        return loading;
      },
    };
    faces.set(id, found);
  }
  return found;
}

async function decode(family: string, subset: string, bold: boolean): Promise<Uint8Array> {
  const file = join(packageDir(family), 'files', `${family}-${subset.replace(/[[\]]/g, '')}-${bold ? 700 : 400}-normal.woff2`);
  return unwrap(new Uint8Array(readFileSync(file)), WOFF2_MAX_DECODED);
}

const require = createRequire(import.meta.url);
function packageDir(family: string): string {
  return dirname(require.resolve(`@fontsource/${family}/package.json`));
}

const rangeFiles = new Map<string, Record<string, string>>();
function unicodeRanges(family: string): Record<string, string> {
  let ranges = rangeFiles.get(family);
  if (ranges === undefined) {
    ranges = JSON.parse(readFileSync(join(packageDir(family), 'unicode.json'), 'utf8')) as Record<string, string>;
    rangeFiles.set(family, ranges);
  }
  return ranges;
}

/** "U+0590-05FF,U+200C-2010,U+FB1D" as sorted [first, last] pairs. */
function rangesOf(family: string, subset: string): Array<[number, number]> {
  const list = unicodeRanges(family)[subset];
  if (list === undefined) throw new Error(`@fontsource/${family} has no subset ${subset}`);
  return list
    .split(',')
    .map((range) => {
      const [first, last] = range.trim().replace(/^U\+/i, '').split('-');
      return [Number.parseInt(first!, 16), Number.parseInt(last ?? first!, 16)] as [number, number];
    })
    .sort((a, b) => a[0] - b[0]);
}

function inRanges(ranges: ReadonlyArray<readonly [number, number]>, codePoint: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const [first, last] = ranges[middle]!;
    if (codePoint < first) high = middle - 1;
    else if (codePoint > last) low = middle + 1;
    else return true;
  }
  return false;
}
