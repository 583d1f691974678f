// A page's tables: first the ruled ones (lattice), then, among the words
// no ruled table holds, the ones laid out by whitespace alone (stream).
import { centreX, centreY } from './cell-text.js';
import { latticeTables } from './lattice.js';
import { mergeSegments } from './lines.js';
import { streamTables } from './stream.js';
import type { Segment, Table, Word } from './types.js';

/**
 * A ruled box whose words align into at least this many times as many
 * columns as its rules make is a whitespace table with a frame or a few
 * rules around it (most of camelot's stream files have a rule under the
 * header and one at the foot): the finer reading wins. Columns, not cells:
 * long wrapped text in a ruled cell aligns into many short rows
 * (camelot's twotables_1), but never into more columns than the rules draw.
 */
const FINER = 2;

export function detectTables(segments: readonly Segment[], words: readonly Word[]): Table[] {
  const inside = (w: Word, t: Table) => {
    const x = centreX(w);
    const y = centreY(w);
    return x >= t.x && x <= t.x + t.width && y >= t.y && y <= t.y + t.height;
  };
  const tables: Table[] = [];
  const ruled = latticeTables(mergeSegments(segments), words);
  for (const table of ruled) {
    const aligned = streamTables(words.filter((w) => inside(w, table)));
    if (aligned.some((t) => t.columns >= FINER * table.columns)) tables.push(...aligned);
    else tables.push(table);
  }
  const free = words.filter((w) => !ruled.some((t) => inside(w, t)));
  return [...tables, ...streamTables(free)].sort((a, b) => a.y - b.y || a.x - b.x);
}
