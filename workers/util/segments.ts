// Intl.Segmenter over long texts, in linear time. V8 before 12.4 (Node 20's
// is 11.3) spends time in proportion to the whole text on every segment it
// hands out (crbug.com/326176949), so one segment() call over a long text
// is quadratic: measured here, 240 KB of Latin words took 23 s to cut into
// words, 176 KB of Thai 10.7 s, 200 KB of English 2.2 s into sentences. A
// client's text reaches it in add_text (Thai line breaks), the built-in
// embedding model, the chunker's sentences, the reader's words (a PDF's text
// item) and fill-form's comb fields. So a long text is segmented
// in pieces of at most PIECE code units, each ended where the whole text
// has a boundary too, so the segments are the ones the whole text gives
// (test/unit/segments.test.ts compares them).

/** Code units segmented at once: at this length a segment costs about what it would in a short text. */
const PIECE = 2048;

/**
 * The segments `segmenter` finds in `text`, with their index in `text`. A
 * text over PIECE code units is segmented in pieces, each ended after a
 * line break if one is near, else at a boundary the segmenter itself finds
 * in a window around the cut, away from the window's edges, where the
 * context it lacks cannot move it; only where a window has none (a
 * sentence longer than it), before a character that starts a grapheme.
 */
export function* segmentsOf(segmenter: Intl.Segmenter, text: string): Generator<Intl.SegmentData> {
  if (text.length <= PIECE) {
    yield* segmenter.segment(text);
    return;
  }
  for (let start = 0; start < text.length; ) {
    const end = start + PIECE >= text.length ? text.length : cutBefore(segmenter, text, start + PIECE);
    for (const data of segmenter.segment(text.slice(start, end))) yield { ...data, index: start + data.index, input: text };
    start = end;
  }
}

/** The window a cut's boundary is looked for in, and how far from its edges that boundary must be. */
const WINDOW = 256;
const MARGIN = 48;
/** Code units that continue what comes before them: a low surrogate, combining marks, joiners, variation selectors. */
const CONTINUES = /[\udc00-\udfff\p{M}\u200c\u200d\ufe00-\ufe0f]/u;

/** Where to end a piece that may run to `limit` (at least PIECE / 2 past its start). */
function cutBefore(segmenter: Intl.Segmenter, text: string, limit: number): number {
  // A line break ends a grapheme, a word and a sentence (after a CR only when no LF follows it).
  for (let i = limit - 1; i >= limit - PIECE / 2; i--) {
    const char = text[i];
    if (char === '\n' || char === '\u2028' || char === '\u2029' || (char === '\r' && text[i + 1] !== '\n')) return i + 1;
  }
  const from = limit - WINDOW;
  let best: number | undefined;
  for (const { index } of segmenter.segment(text.slice(from, limit))) {
    if (index >= MARGIN && index <= WINDOW - MARGIN && (best === undefined || Math.abs(index - WINDOW / 2) < Math.abs(best - WINDOW / 2))) best = index;
  }
  if (best !== undefined) return from + best;
  for (let i = limit; i > from; i--) if (!CONTINUES.test(text[i] as string)) return i;
  return limit;
}
