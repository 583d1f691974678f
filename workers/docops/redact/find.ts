// Text and patterns turned into areas: each page's text, glyph by glyph as
// the reader's operator list shows it (redact/glyphs.ts), searched with
// RE2's linear-time engine (re2js: no backtracking, so `(a+)+$` on hostile
// text costs what any other pattern does), each match boxed from its
// glyphs, one box per line. An exact phrase is a pattern too: its words quoted, the
// whitespace between them matching any whitespace, line breaks included.
//
// Annotations are searched as a reader finds them: each one's appearance on
// its own (a filled field's widget, a FreeText comment; glyphs.ts), and the
// text it holds beyond that (a field's /V and /DV, a comment's /Contents:
// read/annotation-texts.ts). A match in an appearance is an area around its
// glyphs, kept inside the annotation's /Rect; a match in an annotation's
// text that no area on the page reaches yet is an area of the whole /Rect.
// Either way the area overlaps the annotation, so the redaction takes the
// annotation out whole (with its field, when it was the field's last
// widget), as it does for any area: its value, appearance and comment are
// one object, and keeping any of it would keep the match.
import { RE2JS } from 're2js';
import type { ReaderDocument } from '../../read/types.js';
import { TaskFailure } from '../../task/json-task.js';
import type { AnnotationText } from '../../read/types.js';
import type { Box } from './geometry.js';
import { boxAround, intersection, overlaps } from './geometry.js';
import { pageGlyphs, type GlyphGroup, type PlacedGlyph } from './glyphs.js';

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
  const count = (search: Search) => {
    if (++matches > MAX_MATCHES) {
      throw TaskFailure.field(search.field, 'TOO_LARGE', `the searches matched more than ${MAX_MATCHES} times in this document; make the pattern more specific, or split the document.`);
    }
  };
  for (let number = 1; number <= reader.pageCount; number++) {
    const page = await reader.page(number);
    let groups: GlyphGroup[];
    let annotations: readonly AnnotationText[];
    try {
      groups = await pageGlyphs(page);
      annotations = await page.annotationTexts();
    } finally {
      page.close();
    }
    const boxes: Box[] = [];
    for (const group of groups) {
      const layout = pageText(group.glyphs);
      for (const search of searches) {
        const matcher = search.pattern.matcher(layout.text);
        while (matcher.find()) {
          const start = matcher.start();
          const end = matcher.end();
          if (end <= start) continue;
          count(search);
          const around = layout.boxes(start, end);
          // Glyphs an appearance draws outside its annotation's box are clipped away; the area stays on the annotation.
          boxes.push(...(group.annotation === null ? around : around.map((box) => intersection(box, group.annotation as Box) ?? solid(group.annotation as Box))));
        }
      }
    }
    for (const annotation of annotations) {
      const rect = solid({ x0: annotation.x, y0: annotation.y, x1: annotation.x + annotation.width, y1: annotation.y + annotation.height });
      if (boxes.some((box) => overlaps(box, rect))) continue;
      const search = searches.find((candidate) => annotation.texts.some((text) => matchesIn(candidate, text)));
      if (search === undefined) continue;
      count(search);
      boxes.push(rect);
    }
    if (boxes.length > 0) found.set(number, boxes);
  }
  return found;
}

function matchesIn(search: Search, text: string): boolean {
  // Each value as the reader's text is: NFKC, line breaks as they are.
  const matcher = search.pattern.matcher(text.normalize('NFKC'));
  while (matcher.find()) if (matcher.end() > matcher.start()) return true;
  return false;
}

/** A box with extent: an annotation with an empty /Rect (a hidden field's [0 0 0 0]) still gets an area that overlaps it. */
function solid(box: Box): Box {
  const padX = box.x1 - box.x0 > 0 ? 0 : 0.5;
  const padY = box.y1 - box.y0 > 0 ? 0 : 0.5;
  return { x0: box.x0 - padX, y0: box.y0 - padY, x1: box.x1 + padX, y1: box.y1 + padY };
}

interface PageText {
  readonly text: string;
  /** One box per line around the glyphs of the characters [start, end), whitespace glyphs at either end of a line left out. */
  boxes(start: number, end: number): Box[];
}

/**
 * The glyphs' text in drawing order, a line break where the next glyph is
 * off the previous one's baseline by half its size, a space where it starts
 * a quarter of its size or more after the previous one ends (or jumps back):
 * PDFs often draw no space glyph between words.
 */
function pageText(glyphs: readonly PlacedGlyph[]): PageText {
  let text = '';
  const glyphAt: number[] = [];
  const lineOf: number[] = [];
  let line = 0;
  glyphs.forEach((glyph, index) => {
    const previous = glyphs[index - 1];
    if (previous !== undefined) {
      const dx = previous.end[0] - previous.start[0];
      const dy = previous.end[1] - previous.start[1];
      const length = Math.hypot(dx, dy) || 1;
      const [ux, uy] = length === 1 && dx === 0 && dy === 0 ? [1, 0] : [dx / length, dy / length];
      const offX = glyph.start[0] - previous.end[0];
      const offY = glyph.start[1] - previous.end[1];
      const along = offX * ux + offY * uy;
      const across = Math.abs(offY * ux - offX * uy);
      const size = Math.max(previous.size, glyph.size, 0.01);
      if (across > size / 2) {
        text += '\n';
        glyphAt.push(-1);
        line++;
      } else if ((along > size / 4 || along < -size) && !/\s$/u.test(text) && !/^\s/u.test(glyph.text)) {
        text += ' ';
        glyphAt.push(-1);
      }
    }
    lineOf.push(line);
    // A space glyph drawn back over the previous glyph separates nothing (pdftotext drops it too: "Deﬁ cit" in a corpus table).
    if (previous !== undefined && /^\s+$/u.test(glyph.text) && overlapsPrevious(previous, glyph)) return;
    // NFKC, as the reader's text is: a ligature glyph (U+FB01) reads "fi", so "Definition" matches it.
    const chars = glyph.text.normalize('NFKC');
    for (let k = 0; k < chars.length; k++) glyphAt.push(index);
    text += chars;
  });
  return {
    text,
    boxes(start, end) {
      const lines = new Map<number, Box[]>();
      let last = -1;
      for (let i = start; i < end; i++) {
        const index = glyphAt[i] ?? -1;
        if (index < 0 || index === last) continue;
        last = index;
        const glyph = glyphs[index] as PlacedGlyph;
        if (/^\s*$/u.test(glyph.text)) continue;
        const onLine = lines.get(lineOf[index] as number) ?? [];
        onLine.push(glyph.box);
        lines.set(lineOf[index] as number, onLine);
      }
      return [...lines.values()].map((boxes) => boxAround(boxes.flatMap((box) => [[box.x0, box.y0], [box.x1, box.y1]] as [number, number][])));
    },
  };
}

function overlapsPrevious(previous: PlacedGlyph, glyph: PlacedGlyph): boolean {
  const dx = previous.end[0] - previous.start[0];
  const dy = previous.end[1] - previous.start[1];
  const length = Math.hypot(dx, dy);
  if (length === 0) return false;
  const along = ((glyph.start[0] - previous.end[0]) * dx + (glyph.start[1] - previous.end[1]) * dy) / length;
  return along < -0.1 * Math.max(previous.size, 0.01);
}
