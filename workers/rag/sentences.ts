// Sentences by the Unicode sentence-boundary rules (UAX #29) as Intl.Segmenter
// implements them for the document's language: they also end at 。！？ in
// Chinese and Japanese, where there are no spaces to split on.
import { segmentsOf } from '../util/segments.js';

const segmenters = new Map<string, Intl.Segmenter>();

export function sentences(text: string, language: string | undefined): string[] {
  const locale = language ?? 'und';
  let segmenter = segmenters.get(locale);
  if (segmenter === undefined) {
    segmenter = new Intl.Segmenter(language, { granularity: 'sentence' });
    segmenters.set(locale, segmenter);
  }
  const out: string[] = [];
  for (const { segment } of segmentsOf(segmenter, text)) {
    const trimmed = segment.trim();
    if (trimmed !== '') out.push(trimmed);
  }
  return out;
}
