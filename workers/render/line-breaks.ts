// Where a line may break inside a run of text that has no spaces, by the
// Unicode Line Breaking Algorithm (UAX #14, the `linebreak` package, which
// PDFKit uses): between CJK characters, never before closing punctuation
// or a small kana. Scripts written without spaces between words (Thai,
// Lao, Khmer, Myanmar: UAX #14's class SA) need a dictionary, which
// Intl.Segmenter's word boundaries (ICU) give.
//
// Text in scripts that separate words with spaces keeps the engine's
// whitespace-only breaking (no break after a hyphen, as before), so Latin
// documents lay out exactly as they did and pay nothing for this.
import { createRequire } from 'node:module';
import { segmentsOf } from '../util/segments.js';

interface Break {
  readonly position: number;
  readonly required: boolean;
}
type LineBreakerClass = new (text: string) => { nextBreak(): Break | null };
const LineBreaker = createRequire(import.meta.url)('linebreak') as LineBreakerClass;

/** Scripts that break between characters or need a dictionary: Thai, Lao, Myanmar, Khmer, CJK (ideographs, kana, Hangul, full-width forms). */
const NEEDS_UAX14 = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u2fdf\u3000-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\u{20000}-\u{3ffff}]/u;
const SOUTH_EAST_ASIAN_RUN = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]+/gu;

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * The offsets in `text` where a line may break between two characters
 * that are not whitespace; undefined when the text needs none beyond its
 * spaces (every Latin, Greek, Cyrillic, Arabic, Hebrew or Indic text).
 */
export function breakOpportunities(text: string): ReadonlySet<number> | undefined {
  if (!NEEDS_UAX14.test(text)) return undefined;
  const breaks = new Set<number>();
  const breaker = new LineBreaker(text);
  for (let found = breaker.nextBreak(); found !== null; found = breaker.nextBreak()) {
    if (!found.required) breaks.add(found.position);
  }
  for (const run of text.matchAll(SOUTH_EAST_ASIAN_RUN)) {
    for (const { index } of segmentsOf(wordSegmenter, run[0])) if (index > 0) breaks.add(run.index + index);
  }
  return breaks;
}
