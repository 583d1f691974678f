// A page's tables from what the reader gives: its text items and its
// operator list. Items are cut into words (pdf.js hands over runs that may
// hold several cells' text); when most of the page's text runs in another
// direction (a table turned 90 degrees to fit a portrait page, camelot's
// `rotated` file), words and rules are turned so that text reads left to
// right, the tables are found there, and their boxes turned back.
import { splitItem } from '../split.js';
import type { Operators, TextItem } from '../types.js';
import { detectTables } from './detect.js';
import { rulingSegments } from './rulings.js';
import type { Segment, Table, Word } from './types.js';

/** Items within this many degrees of the page's main direction are read with it. */
const SAME_DIRECTION = 1;

export function pageTables(items: readonly TextItem[], operators: Operators): Table[] {
  const angle = mainDirection(items);
  const turn = turning(angle);
  const back = turning(-angle);
  const words = items.filter((item) => !item.invisible && angleBetween(item.rotation, angle) <= SAME_DIRECTION).flatMap((item) => wordsOf(item, turn));
  const segments = rulingSegments(operators).map((s): Segment => {
    const [x1, y1] = turn(s.x1, s.y1);
    const [x2, y2] = turn(s.x2, s.y2);
    return { x1, y1, x2, y2 };
  });
  const tables = detectTables(segments, words);
  return (angle === 0 ? tables : tables.map((table) => turnedBack(table, back))).map(rounded);
}

/** The direction (0, 90, 180 or 270 degrees clockwise) that carries most characters. */
function mainDirection(items: readonly TextItem[]): number {
  const weight = new Map<number, number>();
  for (const item of items) {
    const quarter = (Math.round(item.rotation / 90) * 90) % 360;
    if (angleBetween(item.rotation, quarter) > SAME_DIRECTION) continue;
    weight.set(quarter, (weight.get(quarter) ?? 0) + item.text.length);
  }
  return [...weight.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 0;
}

function angleBetween(a: number, b: number): number {
  const d = Math.abs((((a - b) % 360) + 360) % 360);
  return Math.min(d, 360 - d);
}

/**
 * Turns page coordinates (y down) by `-degrees`, so text drawn at
 * `degrees` clockwise reads left to right. Exact for quarter turns.
 */
function turning(degrees: number): (x: number, y: number) => [number, number] {
  const radians = (degrees * Math.PI) / 180;
  const cos = Math.round(Math.cos(radians));
  const sin = Math.round(Math.sin(radians));
  return (x, y) => [x * cos + y * sin, -x * sin + y * cos];
}

/** The item's words (space to space) with their boxes from the font's glyph widths (split.ts), in the turned frame. */
function wordsOf(item: TextItem, turn: (x: number, y: number) => [number, number]): Word[] {
  return splitItem(item, 'word').map((piece) => {
    const [x, y] = turn(piece.x, piece.y);
    return { text: piece.text, x, y, width: piece.width, height: item.height };
  });
}

function turnedBack(table: Table, back: (x: number, y: number) => [number, number]): Table {
  const [ax, ay] = back(table.x, table.y);
  const [bx, by] = back(table.x + table.width, table.y + table.height);
  return { ...table, x: Math.min(ax, bx), y: Math.min(ay, by), width: Math.abs(bx - ax), height: Math.abs(by - ay) };
}

/** Hundredths of a point, as the reader gives every other coordinate. */
function rounded(table: Table): Table {
  const r = (value: number) => Math.round(value * 100) / 100;
  return { ...table, x: r(table.x), y: r(table.y), width: r(table.width), height: r(table.height) };
}
