// Text items into lines. Each item is looked at in its own text frame (u
// along the writing direction, v across it, downwards), so rotated text is
// grouped the same way as upright text. Two items are on one line when
// their boxes overlap across the line by more than half the smaller box and
// they share a direction; a line is cut where the gap along it is wider than
// COLUMN_GAP_EM: a gutter between columns or cells, not a space between words.
import type { TextItem } from '../types.js';
import { displayText, keepsTo, logicalLine, RTL_LETTER } from './logical-order.js';

/** Wider than any justified word space seen in the corpus (~0.6 em), narrower than a column gutter. */
const COLUMN_GAP_EM = 1.2;
/** A gap along the line wider than this share of the font size means a space, when the text has none. */
const SPACE_GAP_EM = 0.15;

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface TextLine extends Box {
  readonly text: string;
  readonly items: readonly TextItem[];
  /** Degrees, as the items'. */
  readonly rotation: number;
  /** Position in the text frame: u along the line, v across (top), and extent. */
  readonly u: number;
  readonly v: number;
  readonly length: number;
  readonly thickness: number;
  readonly fontSize: number;
}

interface Framed {
  readonly item: TextItem;
  readonly u: number;
  readonly v: number;
}

/** Scripts written without spaces between words: lines and items join with nothing between them. */
export const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** `pageWidth`: the page's width, which tells the side a line keeps to (its reading direction when the line alone cannot: logical-order.ts). */
export function groupLines(items: readonly TextItem[], language?: string, pageWidth?: number): TextLine[] {
  const byRotation = new Map<number, Framed[]>();
  for (const item of withoutOverprints(items)) {
    if (item.text.trim() === '' && item.width <= 0) continue;
    const rotation = Math.round(item.rotation) % 360;
    const radians = (rotation * Math.PI) / 180;
    const cos = Math.cos(radians);
    const sin = Math.sin(radians);
    const framed = { item, u: item.x * cos + item.y * sin, v: -item.x * sin + item.y * cos };
    const group = byRotation.get(rotation);
    if (group === undefined) byRotation.set(rotation, [framed]);
    else group.push(framed);
  }
  const lines: TextLine[] = [];
  const joiner = spaceRule(language);
  for (const [rotation, group] of byRotation) lines.push(...linesInFrame(rotation, group, joiner, rotation === 0 ? pageWidth : undefined));
  return lines;
}

/** Text drawn again over itself within this share of its size is one text (fake bold, shadows). */
const OVERPRINT_EM = 0.2;

/**
 * Drops runs drawn again on top of themselves: producers fake bold type by
 * painting the same text twice with a small offset, and some draw a shadow;
 * pdftotext removes such duplicates too (poppler's TextPage drops
 * overlapping identical characters). Of two runs on one spot where one's
 * text starts the other's, the longer stays.
 */
function withoutOverprints(items: readonly TextItem[]): TextItem[] {
  const kept: (TextItem | null)[] = [];
  const buckets = new Map<string, number[]>();
  const keyOf = (x: number, y: number) => `${Math.round(x / 4)}:${Math.round(y / 4)}`;
  for (const item of items) {
    const reach = Math.max(item.fontSize, 1) * OVERPRINT_EM;
    const text = item.text.trim();
    let duplicate = false;
    for (let dx = -1; dx <= 1 && !duplicate; dx++) {
      for (let dy = -1; dy <= 1 && !duplicate; dy++) {
        for (const index of buckets.get(keyOf(item.x + dx * 4, item.y + dy * 4)) ?? []) {
          const other = kept[index];
          if (other === null || other === undefined || other.rotation !== item.rotation) continue;
          if (Math.abs(other.x - item.x) > reach || Math.abs(other.y - item.y) > reach) continue;
          const otherText = other.text.trim();
          if (text === '' || !(otherText.startsWith(text) || text.startsWith(otherText))) continue;
          if (text.length > otherText.length) kept[index] = null;
          else duplicate = true;
          break;
        }
      }
    }
    if (duplicate) continue;
    const key = keyOf(item.x, item.y);
    const list = buckets.get(key);
    if (list === undefined) buckets.set(key, [kept.length]);
    else list.push(kept.length);
    kept.push(item);
  }
  return kept.filter((item): item is TextItem => item !== null);
}

type SpaceRule = (previous: TextItem, next: TextItem, gap: number) => boolean;

function linesInFrame(rotation: number, framed: Framed[], needsSpace: SpaceRule, pageWidth: number | undefined): TextLine[] {
  framed.sort((a, b) => a.v + a.item.height / 2 - (b.v + b.item.height / 2) || a.u - b.u);
  const rows: Framed[][] = [];
  let row: Framed[] = [];
  let rowTop = 0;
  let rowBottom = 0;
  for (const entry of framed) {
    const top = entry.v;
    const bottom = entry.v + entry.item.height;
    const overlap = Math.min(bottom, rowBottom) - Math.max(top, rowTop);
    if (row.length > 0 && overlap > 0.5 * Math.min(entry.item.height, rowBottom - rowTop)) {
      row.push(entry);
      rowTop = Math.min(rowTop, top);
      rowBottom = Math.max(rowBottom, bottom);
    } else {
      if (row.length > 0) rows.push(row);
      row = [entry];
      rowTop = top;
      rowBottom = bottom;
    }
  }
  if (row.length > 0) rows.push(row);
  const lines: TextLine[] = [];
  for (const entries of rows) {
    entries.sort((a, b) => a.u - b.u);
    let piece: Framed[] = [];
    let end = -Infinity;
    for (const entry of entries) {
      const gap = entry.u - end;
      if (piece.length > 0 && gap > COLUMN_GAP_EM * Math.max(entry.item.fontSize, 1)) {
        lines.push(lineOf(rotation, piece, needsSpace, pageWidth));
        piece = [];
      }
      piece.push(entry);
      end = Math.max(end, entry.u + entry.item.width);
    }
    if (piece.length > 0) lines.push(lineOf(rotation, piece, needsSpace, pageWidth));
  }
  return lines.filter((line) => line.text.trim() !== '');
}

function lineOf(rotation: number, visual: readonly Framed[], needsSpace: SpaceRule, pageWidth: number | undefined): TextLine {
  if (visual.some(({ item }) => RTL_LETTER.test(item.text))) return bidiLineOf(rotation, visual, needsSpace, pageWidth);
  return assembled(rotation, visual, needsSpace);
}

function assembled(rotation: number, entries: readonly Framed[], needsSpace: SpaceRule, logicalText?: string): TextLine {
  let text = '';
  let end = -Infinity;
  let previous: TextItem | null = null;
  const sizes = new Map<number, number>();
  for (const { item, u } of entries) {
    if (previous !== null && needsSpace(previous, item, u - end)) text += ' ';
    text += item.text;
    end = Math.max(end, u + item.width);
    previous = item;
    sizes.set(item.fontSize, (sizes.get(item.fontSize) ?? 0) + item.text.length);
  }
  const u = Math.min(...entries.map((e) => e.u));
  const v = Math.min(...entries.map((e) => e.v));
  const length = end - u;
  const thickness = Math.max(...entries.map((e) => e.v + e.item.height)) - v;
  return { text: (logicalText ?? text).replace(/\s+/g, ' ').trim(), items: entries.map((e) => e.item), rotation, u, v, length, thickness, fontSize: dominant(sizes), ...pageBox(rotation, u, v, length, thickness) };
}

/**
 * A line with right-to-left letters: its text and items in logical order
 * (logical-order.ts). Where a space goes is decided on the items as drawn,
 * left to right, as for any line.
 */
function bidiLineOf(rotation: number, visual: readonly Framed[], needsSpace: SpaceRule, pageWidth: number | undefined): TextLine {
  let end = -Infinity;
  let previous: TextItem | null = null;
  const pieces = visual.map(({ item, u }) => {
    const drawn = { ...item, text: displayText(item.text) };
    const spaceBefore = previous !== null && needsSpace(previous, drawn, u - end);
    end = Math.max(end, u + item.width);
    previous = drawn;
    return { text: drawn.text, spaceBefore };
  });
  const start = Math.min(...visual.map((e) => e.u));
  const line = logicalLine(pieces, keepsTo(start, end, pageWidth));
  return assembled(rotation, line.order.map((index) => visual[index] as Framed), needsSpace, line.text);
}

/**
 * Whether a gap between two runs of a line is a space. Between characters
 * of scripts written without spaces there is none to add; where the
 * request names the language and the gap is wider (justified Thai, spaced
 * CJK headings), the language's word segmenter decides: a gap inside one
 * word is no space.
 */
function spaceRule(language: string | undefined): SpaceRule {
  const words = language === undefined ? null : new Intl.Segmenter([language], { granularity: 'word' });
  return (previous, next, gap) => {
    if (/\s$/.test(previous.text) || /^\s/.test(next.text)) return false;
    const before = previous.text.slice(-1);
    const after = next.text[0] ?? '';
    if (NO_SPACE_SCRIPT.test(before) && NO_SPACE_SCRIPT.test(after)) {
      if (words === null || gap <= 0.5 * Math.max(next.fontSize, 1)) return false;
      const tail = [...previous.text].slice(-8).join('');
      const joined = tail + [...next.text].slice(0, 8).join('');
      for (const segment of words.segment(joined)) {
        if (segment.index < tail.length && segment.index + segment.segment.length > tail.length) return false;
      }
      return true;
    }
    return gap > SPACE_GAP_EM * Math.max(next.fontSize, 1);
  };
}

/** The axis-aligned page box of a rectangle given in a text frame rotated by `rotation` degrees. */
export function pageBox(rotation: number, u: number, v: number, length: number, thickness: number): Box {
  if (rotation === 0) return { x: round(u), y: round(v), width: round(length), height: round(thickness) };
  const radians = (rotation * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const corners = [
    [u, v],
    [u + length, v],
    [u, v + thickness],
    [u + length, v + thickness],
  ].map(([cu = 0, cv = 0]) => [cu * cos - cv * sin, cu * sin + cv * cos] as const);
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x: round(x), y: round(y), width: round(Math.max(...xs) - x), height: round(Math.max(...ys) - y) };
}

/** The value that covers the most characters. */
export function dominant<T>(counts: ReadonlyMap<T, number>): T {
  let best: T | undefined;
  let most = -1;
  for (const [value, count] of counts) {
    if (count > most) {
      best = value;
      most = count;
    }
  }
  return best as T;
}

export function round(value: number): number {
  return Math.round(value * 100) / 100;
}
