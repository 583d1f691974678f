// A page's words as compare sees them. `text` mode keeps every word as the
// PDF draws it, in content order. `semantic` mode normalises what changes
// when the same text is set again: Unicode forms (NFKC: ligatures, wide
// forms), soft hyphens, and words hyphenated at a line end ("exam-" +
// "ple" is "example"), so a re-flowed paragraph reads as the same words.
import { splitItem } from '../read/split.js';
import type { TextItem } from '../read/types.js';

export interface Token {
  /** The word as drawn (semantic mode: joined again when hyphenated across lines). */
  readonly text: string;
  /** What equality is decided on. */
  readonly key: string;
  /** 1-based page number in its own document. */
  readonly page: number;
  readonly x: number;
  readonly y: number;
  readonly font: string;
  readonly size: number;
  readonly color: string;
}

/** The item's words (space to space; word boundaries in scripts without spaces), placed by the font's glyph widths. */
function wordsOf(item: TextItem, page: number): Token[] {
  return splitItem(item, 'word').map((piece) => ({
    text: piece.text,
    key: piece.text,
    page,
    x: piece.x,
    y: piece.y,
    font: item.font,
    size: round(item.fontSize),
    color: item.color,
  }));
}

export function textTokens(items: readonly TextItem[], page: number): Token[] {
  return items.flatMap((item) => wordsOf(item, page));
}

const HYPHEN_AT_END = /[\p{L}\p{N}][-\u2010\u00AD]$/u;
const STARTS_LOWER = /^\p{Ll}/u;
const SOFT_HYPHEN = /\u00AD/g;

/**
 * Semantic tokens from the page's lines in reading order (the reader's
 * layout: blocks by columns, then lines): NFKC, soft hyphens dropped, and a
 * word ending in a hyphen at the end of a line joined with the first word
 * of the next line when that starts in lower case (a compound's hyphen
 * before a capital, "Jean-" / "Paul", stays).
 */
export function semanticTokens(lines: readonly (readonly TextItem[])[], page: number): Token[] {
  const out: Token[] = [];
  for (const line of lines) {
    const last = out[out.length - 1];
    const hyphenated = last !== undefined && HYPHEN_AT_END.test(last.text);
    const words = line.flatMap((item) => wordsOf(item, page)).map((t) => ({ ...t, key: t.text.normalize('NFKC').replace(SOFT_HYPHEN, '') }));
    words.forEach((word, k) => {
      const previous = out[out.length - 1];
      if (k === 0 && hyphenated && previous && STARTS_LOWER.test(word.key)) {
        out[out.length - 1] = { ...previous, text: `${previous.text.slice(0, -1)}${word.text}`, key: `${previous.key.replace(/[-\u2010]$/u, '')}${word.key}` };
      } else if (word.key !== '') out.push(word);
    });
  }
  return out;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
