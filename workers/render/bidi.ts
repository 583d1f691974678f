// Bidirectional text by the Unicode Bidirectional Algorithm (UAX #9), with
// bidi-js (a complete, well-tested implementation): a paragraph's embedding
// levels (its direction from its first strong character unless the request
// says), and the reordering of a laid-out line from logical to visual
// order (rule L2). Lines are broken in logical order first, as L1-L2 ask.
import { createRequire } from 'node:module';
import type { Bidi } from 'bidi-js';

export type Direction = 'ltr' | 'rtl' | 'auto';

// A CommonJS module whose typings declare an ES default export: required, as the module it is.
const bidi = (createRequire(import.meta.url)('bidi-js') as () => Bidi)();

/** Characters that can make a paragraph need the algorithm: right-to-left letters and the explicit controls. Latin text skips it. */
const RTL_OR_CONTROL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u200f\u202a-\u202e\u2066-\u2069\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
/** Letters of right-to-left scripts (bidi classes R and AL). */
const RTL_LETTER = /[\u0590-\u05ff\u0600-\u07bf\u07c0-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

export interface ParagraphLevels {
  /** The paragraph's base level: 0 left-to-right, 1 right-to-left. */
  readonly base: 0 | 1;
  /** Per UTF-16 code unit of the paragraph: its resolved embedding level; undefined when every level is the base (nothing to reorder). */
  readonly levels: Uint8Array | undefined;
}

export function paragraphLevels(text: string, direction: Direction = 'auto'): ParagraphLevels {
  if (direction !== 'rtl' && !RTL_OR_CONTROL.test(text)) return { base: 0, levels: undefined };
  const resolved = bidi.getEmbeddingLevels(withAstralClasses(text), direction === 'auto' ? undefined : direction);
  // A text of several paragraphs (newlines) takes its alignment from the first, as the request gives it one direction.
  const base = ((resolved.paragraphs[0]?.level ?? 0) & 1) as 0 | 1;
  return { base, levels: resolved.levels };
}

/** A character of the Basic Multilingual Plane of each bidi class a character beyond it can have. */
const STAND_INS: Readonly<Record<string, string>> = { L: 'a', R: '\u05d0', AL: '\u0627', EN: '0', ES: '+', ET: '#', AN: '\u0660', CS: ',', NSM: '\u0300', BN: '\u00ad', S: '\t', WS: ' ', ON: '!' };

/**
 * The text with each character beyond the Basic Multilingual Plane (an
 * emoji, a historic script) replaced by two characters of its own bidi
 * class, as long as its two UTF-16 code units. bidi-js classifies code
 * units, and a surrogate is no character it knows, so it took each half of
 * "🔬" (ON) for a left-to-right letter: "🔬 שלום" became a left-to-right
 * paragraph. The levels it resolves are per code unit, so they stay those
 * of the text.
 */
function withAstralClasses(text: string): string {
  if (!/[\ud800-\udbff]/.test(text)) return text;
  return text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, (pair) => (STAND_INS[bidi.getBidiCharTypeName(pair)] ?? '!').repeat(2));
}

/**
 * A right-to-left segment's characters as the font must receive them: its
 * mirrored characters swapped ("(" for ")", rule L4), and, when it has no
 * right-to-left letter (fontkit reverses the glyphs of right-to-left scripts
 * itself, and only those), reversed here.
 */
export function visualSegment(text: string, level: number): string {
  if ((level & 1) === 0) return text;
  let mirrored = '';
  for (const char of text) mirrored += bidi.getMirroredCharacter(char) ?? char;
  return RTL_LETTER.test(mirrored) ? mirrored : [...mirrored].reverse().join('');
}

/**
 * The font runs of a segment visualSegment prepared, in drawing order. A
 * right-to-left segment with right-to-left letters is in logical order and
 * fontkit reverses each run of a right-to-left script; but a segment whose
 * characters fall into several fonts ("ו-": the letter in DejaVu, the
 * hyphen in Helvetica) also needs its runs in reverse order, and its runs
 * without such a letter reversed, or the hyphen lands on the wrong side.
 */
export function visualRuns<R extends { readonly text: string }>(runs: R[], level: number): R[] {
  if ((level & 1) === 0 || runs.length < 2 || !runs.some((run) => RTL_LETTER.test(run.text))) return runs;
  return runs.reverse().map((run) => (RTL_LETTER.test(run.text) ? run : { ...run, text: [...run.text].reverse().join('') }));
}

/**
 * Items of a line in visual order (L2): from the highest level down to the
 * lowest odd one, every maximal sequence at that level or above is reversed.
 */
export function reorder<T extends { readonly level: number }>(items: readonly T[]): T[] {
  const out = [...items];
  let highest = 0;
  let lowestOdd = Number.POSITIVE_INFINITY;
  for (const { level } of out) {
    highest = Math.max(highest, level);
    if ((level & 1) === 1) lowestOdd = Math.min(lowestOdd, level);
  }
  for (let level = highest; level >= lowestOdd; level--) {
    for (let i = 0; i < out.length; ) {
      if (out[i]!.level < level) {
        i++;
        continue;
      }
      let end = i;
      while (end < out.length && out[end]!.level >= level) end++;
      const reversed = out.slice(i, end).reverse();
      out.splice(i, end - i, ...reversed);
      i = end;
    }
  }
  return out;
}
