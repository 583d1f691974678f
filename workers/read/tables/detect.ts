// A page's tables: first the ruled ones (lattice), then, among the words
// no ruled table holds, the ones laid out by whitespace alone (stream).
import { centreX, centreY } from './cell-text.js';
import { latticeTables } from './lattice.js';
import { mergeSegments } from './lines.js';
import { streamTables } from './stream.js';
import type { Segment, Table, Word } from './types.js';

export function detectTables(segments: readonly Segment[], words: readonly Word[]): Table[] {
  const ruled = latticeTables(mergeSegments(segments), words);
  const inside = (w: Word, t: Table) => {
    const x = centreX(w);
    const y = centreY(w);
    return x >= t.x && x <= t.x + t.width && y >= t.y && y <= t.y + t.height;
  };
  const free = words.filter((w) => !ruled.some((t) => inside(w, t)));
  return [...ruled, ...streamTables(free)].sort((a, b) => a.y - b.y || a.x - b.x);
}
