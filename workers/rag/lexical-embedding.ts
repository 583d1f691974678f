// The built-in embedding model, `platen-lexical-v1`: a deterministic lexical
// embedding that needs no download. No npm package ships sentence-embedding
// weights and no model hub is reachable from this service's machines, so
// this is what works offline. It is honest about what it is: texts that
// share words (or, through character n-grams, word stems and inflections)
// come out close; it knows no synonyms.
//
// Feature hashing (Weinberger et al., 2009): every feature (a word, a pair
// of adjacent words, the character 3-to-5-grams of each word) is hashed to
// one of `dimensions` slots with a second hash choosing its sign, so
// collisions cancel on average instead of piling up. Term weights are
// sublinear (1 + ln tf), so a word repeated ten times does not drown the
// rest; L2-normalised on request, so a dot product is the cosine.
// Words are cut by Intl.Segmenter (ICU's dictionaries), which also finds
// words in Chinese, Japanese and Thai text written without spaces.

import { segmentsOf } from '../util/segments.js';

export const LEXICAL_MODEL = 'platen-lexical-v1';
export const MIN_DIMENSIONS = 64;
export const MAX_DIMENSIONS = 4096;
export const DEFAULT_DIMENSIONS = 384;

/** Weights of the feature kinds: whole words count most, their pieces least. */
const WORD_WEIGHT = 1;
const PAIR_WEIGHT = 0.5;
const GRAM_WEIGHT = 0.25;
const GRAM_SIZES = [3, 4, 5] as const;

const words = new Intl.Segmenter(undefined, { granularity: 'word' });

export function embedText(text: string, dimensions: number, normalize: boolean): Float32Array {
  const counts = new Map<string, number>();
  const bump = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  let previous: string | undefined;
  for (const { segment, isWordLike } of segmentsOf(words, text.normalize('NFKC').toLowerCase())) {
    if (isWordLike !== true) continue;
    bump(`w\u0000${segment}`, WORD_WEIGHT);
    if (previous !== undefined) bump(`p\u0000${previous}\u0000${segment}`, PAIR_WEIGHT);
    previous = segment;
    const padded = `<${segment}>`;
    for (const size of GRAM_SIZES) {
      for (let i = 0; i + size <= padded.length; i++) bump(`g\u0000${padded.slice(i, i + size)}`, GRAM_WEIGHT);
    }
  }
  const vector = new Float32Array(dimensions);
  for (const [feature, weight] of counts) {
    const hash = fmix32(fnv1a(feature));
    // The sign from other bits of the hash than the slot's (the top bit after another round of mixing).
    const sign = fmix32(hash ^ 0x9e3779b9) >>> 31 === 1 ? -1 : 1;
    // Sublinear in the feature's count, scaled by its kind's weight.
    const kindWeight = feature.charCodeAt(0) === 0x77 ? WORD_WEIGHT : feature.charCodeAt(0) === 0x70 ? PAIR_WEIGHT : GRAM_WEIGHT;
    const tf = weight / kindWeight;
    vector[hash % dimensions] = (vector[hash % dimensions] as number) + sign * kindWeight * (1 + Math.log(tf));
  }
  if (normalize) {
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  }
  return vector;
}

/** 32-bit FNV-1a over UTF-16 code units, as an unsigned integer. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** MurmurHash3's finaliser: spreads every input bit over every output bit (FNV's low bits alone are weak). */
function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
