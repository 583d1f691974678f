// "Stream" tables: tables laid out by whitespace alone, found from text
// alignment (camelot's stream idea). Each text line is cut into chunks
// where the gap between words is wider than a word space; runs of lines cut
// into two or more chunks are a table; its columns are the x-ranges of the
// chunks of its most common shape, widened by chunks that fall in one
// column and joined by none that straddle two; every line is a row.
import { centreX, intoLines } from './cell-text.js';
import type { Table, TableCell, Word } from './types.js';

/**
 * A gap wider than the line's height (about 1.15 em) separates two cells.
 * Word spaces are 0.25 to 0.6 em (justified), but some producers space the
 * words of a cell wider still ("Andhra   Pradesh" in camelot's health
 * file); measured on camelot's stream files, 1.0 agreed best (54.7 % of
 * cells, against 52.0 % at 0.6, 0.8 and 1.2, and 48.3 % at 1.5).
 */
const CELL_GAP = 1.0;
/** A table has at least this many lines cut into two or more cells. */
const MIN_TABULAR_LINES = 3;
/** Lines further apart than this many line heights do not belong to one table. */
const MAX_LINE_GAP = 2.5;
/** Prose in two columns is cut in two on every line: cells of a table are short. */
const MAX_WORDS_PER_CELL = 5;

interface Chunk {
  readonly left: number;
  readonly right: number;
  readonly words: readonly Word[];
}

interface TextLine {
  readonly top: number;
  readonly bottom: number;
  readonly height: number;
  readonly chunks: readonly Chunk[];
}

export function streamTables(words: readonly Word[]): Table[] {
  const lines = intoLines(words).map(toTextLine);
  const tables: Table[] = [];
  for (const region of regions(lines)) {
    const table = tableOf(region);
    if (table) tables.push(table);
  }
  return tables;
}

function toTextLine(words: readonly Word[]): TextLine {
  const height = median(words.map((w) => w.height));
  const chunks: Chunk[] = [];
  let current: Word[] = [];
  let right = Number.NEGATIVE_INFINITY;
  for (const word of words) {
    if (current.length > 0 && word.x - right > CELL_GAP * height) {
      chunks.push(chunkOf(current));
      current = [];
    }
    current.push(word);
    right = Math.max(right, word.x + word.width);
  }
  if (current.length > 0) chunks.push(chunkOf(current));
  return {
    top: Math.min(...words.map((w) => w.y)),
    bottom: Math.max(...words.map((w) => w.y + w.height)),
    height,
    chunks,
  };
}

function chunkOf(words: readonly Word[]): Chunk {
  return { left: Math.min(...words.map((w) => w.x)), right: Math.max(...words.map((w) => w.x + w.width)), words };
}

/**
 * Runs of nearby lines in which most lines are cut into cells. A line of
 * one chunk may sit inside a run (a wrapped cell, a missing value) when a
 * cut line follows it; the run ends at the first gap wider than
 * MAX_LINE_GAP line heights or at two uncut lines in a row.
 */
function regions(lines: readonly TextLine[]): TextLine[][] {
  const out: TextLine[][] = [];
  let run: TextLine[] = [];
  let uncut = 0;
  const close = () => {
    const kept = run.slice(0, run.length - uncut);
    if (kept.filter((l) => l.chunks.length >= 2).length >= MIN_TABULAR_LINES) out.push(kept);
    run = [];
    uncut = 0;
  };
  for (const line of lines) {
    const previous = run[run.length - 1];
    if (previous && line.top - previous.bottom > MAX_LINE_GAP * Math.max(line.height, previous.height)) close();
    const cut = line.chunks.length >= 2;
    if (!cut && run.length === 0) continue;
    if (!cut && uncut >= 1) {
      close();
      continue;
    }
    run.push(line);
    uncut = cut ? 0 : uncut + 1;
  }
  close();
  return out;
}

interface Column {
  left: number;
  right: number;
}

function overlaps(chunk: Chunk, column: Column): boolean {
  return chunk.left < column.right && chunk.right > column.left;
}

function columnsOf(region: readonly TextLine[]): Column[] {
  const cut = region.filter((l) => l.chunks.length >= 2);
  const counts = new Map<number, number>();
  for (const line of cut) counts.set(line.chunks.length, (counts.get(line.chunks.length) ?? 0) + 1);
  // The most common shape; on a tie, the one with more columns.
  const shape = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? 0;
  let columns = coveredBands(cut.filter((l) => l.chunks.length === shape));
  for (const line of region) {
    if (line.chunks.length === shape) continue;
    for (const chunk of line.chunks) {
      const hit = columns.filter((column) => overlaps(chunk, column));
      if (hit.length === 0) columns.push({ left: chunk.left, right: chunk.right });
      else if (hit.length === 1) {
        // Widened only as far as the neighbours allow: a header wider than
        // its column reaches into the gutter, and must not join two columns.
        const column = hit[0] as Column;
        const index = columns.indexOf(column);
        const before = columns[index - 1];
        const after = columns[index + 1];
        column.left = Math.max(Math.min(column.left, chunk.left), before ? before.right + 1 : Number.NEGATIVE_INFINITY);
        column.right = Math.min(Math.max(column.right, chunk.right), after ? after.left - 1 : Number.POSITIVE_INFINITY);
      }
      columns.sort((a, b) => a.left - b.left);
    }
    columns = merge(columns);
  }
  return columns;
}

/**
 * The x-ranges that at least a quarter of the lines (and two) cover with a
 * chunk: a title whose words happen to cut into as many chunks as a table
 * row (camelot's health file) covers its own ranges once and is outvoted.
 */
function coveredBands(lines: readonly TextLine[]): Column[] {
  const chunks = lines.flatMap((l) => l.chunks);
  if (chunks.length === 0) return [];
  const start = Math.floor(Math.min(...chunks.map((c) => c.left)));
  const end = Math.ceil(Math.max(...chunks.map((c) => c.right)));
  const cover = new Int32Array(end - start + 2);
  for (const c of chunks) {
    cover[Math.floor(c.left) - start] = (cover[Math.floor(c.left) - start] as number) + 1;
    cover[Math.ceil(c.right) - start + 1] = (cover[Math.ceil(c.right) - start + 1] as number) - 1;
  }
  const needed = Math.max(2, Math.ceil(lines.length / 4));
  const bands: Column[] = [];
  let running = 0;
  let open = -1;
  for (let i = 0; i <= end - start; i++) {
    running += cover[i] as number;
    if (running >= needed && open < 0) open = i;
    if (running < needed && open >= 0) {
      bands.push({ left: start + open, right: start + i - 1 });
      open = -1;
    }
  }
  if (open >= 0) bands.push({ left: start + open, right: end });
  return bands;
}

function merge(columns: readonly Column[]): Column[] {
  const sorted = [...columns].sort((a, b) => a.left - b.left);
  const out: Column[] = [];
  for (const c of sorted) {
    const last = out[out.length - 1];
    if (last && c.left < last.right) last.right = Math.max(last.right, c.right);
    else out.push({ left: c.left, right: c.right });
  }
  return out;
}

function tableOf(region: readonly TextLine[]): Table | null {
  const columns = columnsOf(region);
  if (columns.length < 2) return null;
  // Boundaries halfway between neighbouring columns.
  const bounds = columns.slice(1).map((c, i) => ((columns[i] as Column).right + c.left) / 2);
  const cells: TableCell[] = [];
  let words = 0;
  let filled = 0;
  region.forEach((line, row) => {
    const byColumn: Word[][] = columns.map(() => []);
    for (const chunk of line.chunks) {
      for (const word of chunk.words) {
        const x = centreX(word);
        let column = 0;
        while (column < bounds.length && x > (bounds[column] as number)) column++;
        byColumn[column]?.push(word);
      }
    }
    byColumn.forEach((list, column) => {
      if (list.length > 0) filled++;
      words += list.length;
      cells.push({ row, column, row_span: 1, column_span: 1, text: list.map((w) => w.text).join(' ') });
    });
  });
  if (filled === 0 || words / filled > MAX_WORDS_PER_CELL) return null;
  const left = (columns[0] as Column).left;
  const right = (columns[columns.length - 1] as Column).right;
  const top = (region[0] as TextLine).top;
  const bottom = (region[region.length - 1] as TextLine).bottom;
  return { x: left, y: top, width: right - left, height: bottom - top, rows: region.length, columns: columns.length, method: 'stream', cells };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
