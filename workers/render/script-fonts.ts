// The bundled faces for the scripts DejaVu does not draw: Hebrew, the Indic
// scripts, Thai, Lao, Khmer, Myanmar, Ethiopic, Chinese (simplified and
// traditional), Japanese and Korean, from the Noto families as Fontsource
// packages them on npm (OFL-1.1, WOFF2). A face is read, decoded and parsed
// only when a run needs one of its characters (once per worker: the bytes
// object is kept so the seam's parse cache hits), so a Latin document never
// pays for them; and like every custom font only a subset is embedded.
//
// Fontsource splits each family into subsets with the Unicode ranges of each
// in its unicode.json: the script's own subset ("hebrew", "thai", ...) is
// what we load. The CJK families have one large subset of the common
// characters ("chinese-simplified": 7,947 code points, 1.1 MB of WOFF2) and
// ~100 numbered slices ("[119]") holding the rest: the large one first, a
// slice only for a character outside it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { unwrap, WOFF2_MAX_DECODED } from '../font/web-fonts.js';

export interface ScriptFace {
  /** `noto-sans-thai/thai`, `noto-sans-sc/[119]`: package and subset, also the cache key. */
  readonly id: string;
  /** Whether the face may have the code point, from its published ranges; its cmap has the last word. */
  mayCover(codePoint: number): boolean;
  /** The face as sfnt bytes; the same object on every call in this worker. */
  load(bold: boolean): Promise<Uint8Array>;
}

/** The Han-script families in the order a document's language prefers them (Han characters differ in form by region). */
type HanFamily = 'sc' | 'tc' | 'jp' | 'kr';

const SCRIPT_PACKAGES: readonly (readonly [pkg: string, subset: string])[] = [
  ['hebrew', 'hebrew'],
  ['devanagari', 'devanagari'],
  ['bengali', 'bengali'],
  ['gurmukhi', 'gurmukhi'],
  ['gujarati', 'gujarati'],
  ['oriya', 'oriya'],
  ['tamil', 'tamil'],
  ['telugu', 'telugu'],
  ['kannada', 'kannada'],
  ['malayalam', 'malayalam'],
  ['sinhala', 'sinhala'],
  ['thai', 'thai'],
  ['lao', 'lao'],
  ['khmer', 'khmer'],
  ['myanmar', 'myanmar'],
  ['ethiopic', 'ethiopic'],
];

const HAN_SUBSETS: Record<HanFamily, string> = { sc: 'chinese-simplified', tc: 'chinese-traditional', jp: 'japanese', kr: 'korean' };

/**
 * The faces to try, in order, for a document in `language` (BCP 47, may be
 * undefined): every script family, then the Han families with the
 * language's own first (zh-Hant/-TW/-HK/-MO → traditional, ja → Japanese,
 * ko → Korean, otherwise simplified Chinese).
 */
export function scriptFaces(language: string | undefined): readonly ScriptFace[] {
  const key = hanPreference(language).join();
  let faces = facesByPreference.get(key);
  if (faces === undefined) {
    faces = [...SCRIPT_PACKAGES.map(([pkg, subset]) => face(pkg, subset)), ...hanPreference(language).flatMap(hanFaces)];
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
function hanFaces(family: HanFamily): ScriptFace[] {
  const pkg = family;
  const slices = Object.keys(unicodeRanges(pkg)).filter((subset) => subset.startsWith('['));
  const all = slices.flatMap((subset) => rangesOf(pkg, subset)).sort((a, b) => a[0] - b[0]);
  return [face(pkg, HAN_SUBSETS[family], all), ...slices.map((subset) => face(pkg, subset))];
}

const faces = new Map<string, ScriptFace>();

function face(pkg: string, subset: string, ranges = rangesOf(pkg, subset)): ScriptFace {
  const id = `noto-sans-${pkg}/${subset}`;
  let found = faces.get(id);
  if (found === undefined) {
    const bytes = new Map<boolean, Promise<Uint8Array>>();
    found = {
      id,
      mayCover: (codePoint) => inRanges(ranges, codePoint),
      load: (bold) => {
        let loading = bytes.get(bold);
        if (loading === undefined) bytes.set(bold, (loading = decode(pkg, subset, bold)));
        return loading;
      },
    };
    faces.set(id, found);
  }
  return found;
}

async function decode(pkg: string, subset: string, bold: boolean): Promise<Uint8Array> {
  const file = join(packageDir(pkg), 'files', `noto-sans-${pkg}-${subset.replace(/[[\]]/g, '')}-${bold ? 700 : 400}-normal.woff2`);
  return unwrap(new Uint8Array(readFileSync(file)), WOFF2_MAX_DECODED);
}

const require = createRequire(import.meta.url);
function packageDir(pkg: string): string {
  return dirname(require.resolve(`@fontsource/noto-sans-${pkg}/package.json`));
}

const rangeFiles = new Map<string, Record<string, string>>();
function unicodeRanges(pkg: string): Record<string, string> {
  let ranges = rangeFiles.get(pkg);
  if (ranges === undefined) {
    ranges = JSON.parse(readFileSync(join(packageDir(pkg), 'unicode.json'), 'utf8')) as Record<string, string>;
    rangeFiles.set(pkg, ranges);
  }
  return ranges;
}

/** "U+0590-05FF,U+200C-2010,U+FB1D" as sorted [first, last] pairs. */
function rangesOf(pkg: string, subset: string): Array<[number, number]> {
  const list = unicodeRanges(pkg)[subset];
  if (list === undefined) throw new Error(`@fontsource/noto-sans-${pkg} has no subset ${subset}`);
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
