// A line of right-to-left or mixed text from display order back to the order
// it was written in (issue 15). A line's items arrive left to right as drawn;
// pdf.js has already turned each item's own characters into logical order
// (its bidi(), src/core/bidi.js), so "مرحبا John، الطلب 1042 جاهز" read as
// "جاهز 1042 ، الطلبJohn مرحبا": the runs in display order, and the space
// between "الطلب" and "،" on the wrong side of the item it belongs to. Here
// each item goes back to display order as pdf.js saw it, the line is joined
// in display order, and the Unicode Bidirectional Algorithm's reordering
// (UAX #9 rule L2, by bidi-js) is applied to the display string: for text
// without explicit embeddings the levels of the display string are the
// levels of the logical one, and reversing the same runs again undoes L2.
import { createRequire } from 'node:module';
import type { Bidi } from 'bidi-js';

// A CommonJS module whose typings declare an ES default export: required, as the module it is.
const bidi = (createRequire(import.meta.url)('bidi-js') as () => Bidi)();

/** Letters of right-to-left scripts (bidi classes R and AL); a line without one is left as it is, at no cost. */
export const RTL_LETTER = /[\u0590-\u05ff\u0600-\u07bf\u07c0-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

export type Direction = 'ltr' | 'rtl';

/** A piece of a line in display order: its text as drawn (displayText) and whether a space goes before it. */
export interface DisplayPiece {
  readonly text: string;
  readonly spaceBefore: boolean;
}

export interface LogicalLine {
  readonly text: string;
  /** The pieces' indexes in logical order (by where each piece's first character lands). */
  readonly order: readonly number[];
}

/**
 * An item's text as it was drawn, left to right. pdf.js (bidi(), with no
 * start level) reads an item as right-to-left unless fewer than 30% of its
 * characters are R, AL or AN and it is longer than 4 characters, and
 * reverses its runs; the same reversal at the same base level undoes it.
 */
export function displayText(text: string): string {
  const order = displayOrder(text);
  return order === null ? text : order.map((index) => text[index] ?? '').join('');
}

/** For each code unit of the item as drawn, left to right, the index of the code unit of `text` it is; null when drawn as written. */
export function displayOrder(text: string): number[] | null {
  if (!RTL_LETTER.test(text) && !/[\u0660-\u0669\u066b\u066c]/.test(text)) return null;
  let counted = 0;
  for (let i = 0; i < text.length; i++) {
    const type = bidi.getBidiCharTypeName(text[i] ?? '');
    if (type === 'R' || type === 'AL' || type === 'AN') counted++;
  }
  const direction: Direction = counted / text.length < 0.3 && text.length > 4 ? 'ltr' : 'rtl';
  return reordered(text, direction).from;
}

/**
 * The line's paragraph direction. The rule of UAX #9 (P2: its first strong
 * character in logical order) cannot be read from display order, but its
 * consequence can: a right-to-left paragraph that starts with a
 * right-to-left letter has that letter at its right end, a left-to-right one
 * starting with a Latin letter has it at its left end. When only one end fits
 * that is the answer; when both fit ("Platen-ו 123 םע" is "עם 123 ו-Platen"
 * from the right or itself from the left) the side the line keeps to decides
 * (the renderer, like word processors, aligns a right-to-left paragraph to
 * the right: measured, test/render-scripts.test.ts), and failing that, the
 * direction most of its strong characters have, as poppler decides.
 */
export function lineDirection(display: string, side: Direction | null): Direction {
  let leftmost: string | null = null;
  let rightmost: string | null = null;
  let rtl = 0;
  let ltr = 0;
  for (const char of display) {
    const type = bidi.getBidiCharTypeName(char);
    if (type !== 'L' && type !== 'R' && type !== 'AL') continue;
    if (type === 'L') ltr++;
    else rtl++;
    leftmost ??= type;
    rightmost = type;
  }
  const startsLeft = leftmost === 'L';
  const startsRight = rightmost === 'R' || rightmost === 'AL';
  if (startsRight && !startsLeft) return 'rtl';
  if (startsLeft && !startsRight) return 'ltr';
  if (side !== null) return side;
  return rtl > ltr ? 'rtl' : 'ltr';
}

/** The side of the page a line keeps to: nearer its edge by more than a point; null when centred or unknown. */
export function keepsTo(start: number, end: number, pageWidth: number | undefined): Direction | null {
  if (pageWidth === undefined) return null;
  const left = start;
  const right = pageWidth - end;
  if (Math.abs(left - right) <= 1) return null;
  return left < right ? 'ltr' : 'rtl';
}

/** A line's pieces (display order) joined into its text in logical order. */
export function logicalLine(pieces: readonly DisplayPiece[], side: Direction | null): LogicalLine {
  let display = '';
  const owner: number[] = [];
  pieces.forEach((piece, index) => {
    const text = (piece.spaceBefore ? ' ' : '') + piece.text;
    display += text;
    for (let i = 0; i < text.length; i++) owner.push(index);
  });
  const { text, from } = reordered(display, lineDirection(display, side));
  const first = new Map<number, number>();
  from.forEach((source, at) => {
    const piece = owner[source] ?? 0;
    if (!first.has(piece)) first.set(piece, at);
  });
  const order = pieces.map((_, index) => index).sort((a, b) => (first.get(a) ?? 0) - (first.get(b) ?? 0));
  return { text, order };
}

/** Rule L2 at the given base direction: the text reordered, and for each output code unit the index it came from. */
function reordered(text: string, direction: Direction): { text: string; from: number[] } {
  const levels = bidi.getEmbeddingLevels(text, direction);
  const from = [...Array(text.length).keys()];
  for (const [start = 0, end = 0] of bidi.getReorderSegments(text, levels)) {
    const reversed = from.slice(start, end + 1).reverse();
    from.splice(start, reversed.length, ...reversed);
  }
  // A character outside the BMP is two code units; reversing swapped them, so swap them back.
  for (let i = 0; i + 1 < from.length; i++) {
    const high = text.charCodeAt(from[i + 1] ?? 0);
    const low = text.charCodeAt(from[i] ?? 0);
    if (low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff) {
      [from[i], from[i + 1]] = [from[i + 1] ?? 0, from[i] ?? 0];
      i++;
    }
  }
  return { text: from.map((index) => text[index] ?? '').join(''), from };
}
