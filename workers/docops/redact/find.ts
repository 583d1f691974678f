// Text and patterns turned into areas: each page's text as the reader reads
// it (the same runs /v1/parse reports), searched with RE2's linear-time
// engine (re2js: no backtracking, so `(a+)+$` on hostile text costs what
// any other pattern does), each match's characters boxed from the run's
// glyph advances. An exact phrase is a pattern too: its words quoted, the
// whitespace between them matching any whitespace, line breaks included.
import { RE2JS } from 're2js';
import type { ReaderDocument, TextItem } from '../../read/types.js';
import { TaskFailure } from '../../task/json-task.js';
import type { Box } from './geometry.js';
import { boxAround } from './geometry.js';

/** Matches one request may turn into areas, over every search and page: past it, 422 on the search that overflowed. */
export const MAX_MATCHES = 10_000;

export interface Search {
  /** The request member it came from (`text[0]`, `patterns[2]`), for errors[]. */
  readonly field: string;
  readonly pattern: RE2JS;
}

/** A phrase as a pattern: its words quoted, any run of whitespace between them matching any whitespace. */
export function phraseSearch(phrase: string, field: string): Search {
  const words = phrase.trim().split(/\s+/u).map((word) => RE2JS.quote(word));
  return { field, pattern: RE2JS.compile(words.join('\\s+')) };
}

export function patternSearch(source: string, field: string): Search {
  try {
    return { field, pattern: RE2JS.compile(source) };
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : 'not a valid expression';
    throw TaskFailure.field(field, 'INVALID_FORMAT', `is not a regular expression this server runs (RE2 syntax: no backreferences or lookaround): ${reason.slice(0, 200)}.`);
  }
}

/** Areas per page number (1-based), in page coordinates, of every match of every search. */
export async function findAreas(reader: ReaderDocument, searches: readonly Search[]): Promise<Map<number, Box[]>> {
  const found = new Map<number, Box[]>();
  let matches = 0;
  for (let number = 1; number <= reader.pageCount; number++) {
    const page = await reader.page(number);
    let items: readonly TextItem[];
    try {
      items = await page.text({ styles: true });
    } finally {
      page.close();
    }
    const layout = pageText(items);
    for (const search of searches) {
      const matcher = search.pattern.matcher(layout.text);
      while (matcher.find()) {
        const start = matcher.start();
        const end = matcher.end();
        if (end <= start) continue;
        if (++matches > MAX_MATCHES) {
          throw TaskFailure.field(search.field, 'TOO_LARGE', `the searches matched more than ${MAX_MATCHES} times in this document; make the pattern more specific, or split the document.`);
        }
        const boxes = found.get(number) ?? [];
        boxes.push(...layout.boxes(start, end));
        found.set(number, boxes);
      }
    }
  }
  return found;
}

interface PageText {
  readonly text: string;
  /** The boxes of the characters [start, end), one per run they fall in, whitespace at either end left out. */
  boxes(start: number, end: number): Box[];
}

/** The runs joined (a line break after a run that ends a line), and where each character of the joined text is. */
function pageText(items: readonly TextItem[]): PageText {
  let text = '';
  const runStart: number[] = [];
  const offsets: number[][] = [];
  for (const item of items) {
    runStart.push(text.length);
    offsets.push(characterOffsets(item));
    text += item.text;
    if (item.endsLine) text += '\n';
  }
  const runAt = (index: number): number => {
    let low = 0;
    let high = runStart.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((runStart[mid] as number) <= index) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  return {
    text,
    boxes(start, end) {
      const out: Box[] = [];
      for (let run = runAt(start); run < items.length && (runStart[run] as number) < end; run++) {
        const item = items[run] as TextItem;
        const from = Math.max(start, runStart[run] as number) - (runStart[run] as number);
        let to = Math.min(end, (runStart[run] as number) + item.text.length) - (runStart[run] as number);
        let first = from;
        while (first < to && /\s/u.test(item.text[first] as string)) first++;
        while (to > first && /\s/u.test(item.text[to - 1] as string)) to--;
        if (to <= first) continue;
        const at = offsets[run] as number[];
        out.push(runBox(item, at[first] as number, at[to] as number));
      }
      return out;
    },
  };
}

/**
 * Where each character of a run starts along its baseline (points from the
 * run's start; one more entry for the run's end). The reader's advances are
 * the glyphs' widths of the non-whitespace characters; whatever the run's
 * width has beyond them (spaces, word and character spacing) is shared out
 * among its whitespace, or, with none, spread over every character. Without
 * advances the width is shared evenly.
 */
function characterOffsets(item: TextItem): number[] {
  const chars = item.text;
  const advances = item.advances;
  const widths = new Array<number>(chars.length).fill(item.width / Math.max(1, chars.length));
  const solid = [...chars].length === chars.length ? [...chars].map((char, i) => (/\s/u.test(char) ? -1 : i)).filter((i) => i >= 0) : [];
  if (advances !== null && advances !== undefined && advances.length === solid.length && solid.length > 0 && advances.every(Number.isFinite)) {
    const glyphs = advances.reduce((sum, advance) => sum + advance, 0);
    const spaces = chars.length - solid.length;
    const rest = item.width - glyphs;
    const scale = spaces === 0 || rest < 0 ? (glyphs > 0 ? item.width / glyphs : 1) : 1;
    widths.fill(spaces > 0 && rest >= 0 ? rest / spaces : 0);
    solid.forEach((index, k) => (widths[index] = (advances[k] as number) * scale));
  }
  const offsets = [0];
  for (const width of widths) offsets.push((offsets.at(-1) as number) + width);
  return offsets;
}

/** The box of the run between two offsets along its baseline, in its own direction (TextItem.rotation, clockwise). */
function runBox(item: TextItem, from: number, to: number): Box {
  const angle = (item.rotation * Math.PI) / 180;
  const along: [number, number] = [Math.cos(angle), Math.sin(angle)];
  const down: [number, number] = [-along[1], along[0]];
  const corner = (s: number, t: number): [number, number] => [item.x + s * along[0] + t * down[0], item.y + s * along[1] + t * down[1]];
  return boxAround([corner(from, 0), corner(to, 0), corner(from, item.height), corner(to, item.height)]);
}
