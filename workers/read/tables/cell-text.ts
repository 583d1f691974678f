// The text of a cell (or of any box) from the words inside it: words on
// one baseline read left to right with a space between them, lines top to
// bottom with a newline.
import type { Word } from './types.js';

export function centreX(word: Word): number {
  return word.x + word.width / 2;
}

export function centreY(word: Word): number {
  return word.y + word.height / 2;
}

/**
 * Words grouped into lines: a word whose vertical centre is within half its
 * height of a line's centre belongs to it (superscripts and mixed font sizes
 * on one line stay together; the next line, a full line height lower, does not).
 */
export function intoLines(words: readonly Word[]): Word[][] {
  const sorted = [...words].sort((a, b) => centreY(a) - centreY(b) || a.x - b.x);
  const lines: { centre: number; words: Word[] }[] = [];
  for (const word of sorted) {
    const c = centreY(word);
    const line = lines.find((l) => Math.abs(l.centre - c) <= Math.max(word.height, 1) / 2);
    if (line) {
      line.words.push(word);
      line.centre += (c - line.centre) / line.words.length;
    } else lines.push({ centre: c, words: [word] });
  }
  return lines.sort((a, b) => a.centre - b.centre).map((l) => l.words.sort((a, b) => a.x - b.x));
}

export function textOf(words: readonly Word[]): string {
  return intoLines(words)
    .map((line) => line.map((w) => w.text).join(' '))
    .join('\n');
}
