// Text runs split into words or characters, each with its own box. A piece's
// offset along the run comes from the glyph widths (TextItem.advances) when
// the reader has them, else from Helvetica's widths as an estimate; either
// way the pieces are scaled to fill the run's measured width exactly, and
// whitespace takes what the glyphs leave (word and character spacing).
// Words: Intl.Segmenter, so text in scripts without spaces (Chinese,
// Japanese, Thai, ...) is cut at word boundaries too, in the language the
// request names.
import { displayOrder } from './layout/logical-order.js';
import { NO_SPACE_SCRIPT } from './layout/lines.js';
import type { TextItem } from './types.js';
import { segmentsOf } from '../util/segments.js';

export type Granularity = 'span' | 'word' | 'char';

/** Helvetica's advance widths (Adobe AFM, per 1000 em) for ASCII 32-126: the estimate when glyph widths are missing. */
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584,
  584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611,
  278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722,
  500, 500, 500, 334, 260, 334, 584,
];
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

function estimate(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 32 && code <= 126) return (HELVETICA[code - 32] as number) / 1000;
  return WIDE.test(char) ? 1 : 0.556;
}

export interface Piece {
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
}

const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(language: string | undefined): Intl.Segmenter {
  const key = language ?? '';
  let found = segmenters.get(key);
  if (found === undefined) {
    found = new Intl.Segmenter(language === undefined ? undefined : [language], { granularity: 'word' });
    segmenters.set(key, found);
  }
  return found;
}

/** The run cut into pieces; whitespace-only pieces are left out. `span` gives the run back whole. */
export function splitItem(item: TextItem, granularity: Granularity, language?: string): Piece[] {
  if (granularity === 'span') return [{ text: item.text, x: item.x, y: item.y, width: item.width }];
  const chars = [...item.text];
  // A right-to-left run's text is in logical order but its glyphs were drawn (and measured) in display order.
  const drawn = chars.length === item.text.length ? displayOrder(item.text) : null;
  const widths = charWidths(item, drawn === null ? chars : drawn.map((index) => chars[index] ?? ''));
  const place: number[] = drawn === null ? chars.map((_, i) => i) : [];
  drawn?.forEach((index, at) => (place[index] = at));
  const offsets: number[] = [];
  let sum = 0;
  for (const width of widths) {
    offsets.push(sum);
    sum += width;
  }
  const radians = (item.rotation * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const piece = (text: string, from: number, to: number): Piece => {
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    for (let i = from; i < to; i++) {
      const at = place[i] ?? i;
      start = Math.min(start, offsets[at] ?? sum);
      end = Math.max(end, (offsets[at] ?? sum) + (widths[at] ?? 0));
    }
    if (start > end) start = end = sum;
    return { text, x: round(item.x + start * cos), y: round(item.y + start * sin), width: round(end - start) };
  };
  if (granularity === 'char') {
    const pieces: Piece[] = [];
    chars.forEach((char, i) => {
      if (char.trim() !== '') pieces.push(piece(char, i, i + 1));
    });
    return pieces;
  }
  // Segment indices are UTF-16 offsets; map them to code point indices.
  const codePointAt: number[] = [];
  chars.forEach((char, i) => {
    for (let k = 0; k < char.length; k++) codePointAt.push(i);
  });
  codePointAt.push(chars.length);
  const spans: { text: string; from: number; to: number }[] = [];
  for (const segment of segmentsOf(segmenter(language), item.text)) {
    if (segment.segment.trim() === '') continue;
    const from = codePointAt[segment.index] as number;
    const to = codePointAt[segment.index + segment.segment.length] as number;
    // In scripts written with spaces a word runs from space to space, as pdftotext has it ("end.", "well-known");
    // the segmenter's finer cuts are kept where there are no spaces to go by.
    const last = spans[spans.length - 1];
    if (last !== undefined && last.to === from && !NO_SPACE_SCRIPT.test(last.text.slice(-1)) && !NO_SPACE_SCRIPT.test(segment.segment)) {
      last.text += segment.segment;
      last.to = to;
      continue;
    }
    spans.push({ text: segment.segment, from, to });
  }
  return spans.map((span) => piece(span.text, span.from, span.to));
}

/** Each character's share of the run's width: glyph advances (or estimates), whitespace taking the rest. */
function charWidths(item: TextItem, chars: readonly string[]): number[] {
  const advances = item.advances ?? null;
  const glyphChars = chars.filter((c) => c.trim() !== '').length;
  const useGlyphs = advances !== null && advances.length === glyphChars;
  let glyphIndex = 0;
  const widths = chars.map((char) => {
    if (char.trim() === '') return Number.NaN;
    const width = useGlyphs ? (advances[glyphIndex] as number) : estimate(char) * item.fontSize;
    glyphIndex++;
    return width;
  });
  const glyphTotal = widths.reduce((sum, w) => (Number.isNaN(w) ? sum : sum + w), 0);
  const spaces = chars.length - glyphChars;
  const left = item.width - glyphTotal;
  // Spaces take what the glyphs leave, but never less than a thin space; then everything is scaled to the run's width.
  const space = spaces === 0 ? 0 : Math.max(left / spaces, 0.1 * item.fontSize);
  const filled = widths.map((w) => (Number.isNaN(w) ? space : w));
  const total = filled.reduce((sum, w) => sum + w, 0);
  const scale = total > 0 ? item.width / total : 0;
  return filled.map((w) => w * scale);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
