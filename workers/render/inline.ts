// Inline layout: styled spans of text into lines of a given width, and the
// drawing of those lines. Used by add_text, table cells and HTML paragraphs.
//
// Breaks fall at whitespace, and in scripts written without spaces where
// UAX #14 allows (line-breaks.ts). Pieces of different styles with no
// space between them ("<b>bold</b>ly") form one unbreakable unit; a unit
// wider than the line is broken between characters. Newlines are hard
// breaks. Right-to-left and mixed paragraphs are laid out in logical order
// and each line then reordered for display by the bidirectional algorithm
// (bidi.ts). Glyphs are written in that visual order, which is what text
// extractors expect and undo (poppler's pdftotext gives Hebrew and Arabic
// back in logical order from it, and reverses an /ActualText it is handed
// for right-to-left text, taking it for visual). A line whose shaping put
// glyphs out of character order (Indic vowel signs, Thai marks) carries its
// text for /ActualText instead.
import { paragraphLevels, reorder, visualRuns, visualSegment, type Direction } from './bidi.js';
import type { PageCanvas, Rgb } from './canvas.js';
import type { FontBook, FontChoice, Run } from './fonts.js';
import { breakOpportunities } from './line-breaks.js';
import type { Structure } from './tagging/structure.js';

export interface TextStyle extends FontChoice {
  readonly size: number;
  readonly color: Rgb;
  /** Line height as a multiple of the size. */
  readonly lineHeight: number;
  readonly underline: boolean;
  readonly strike: boolean;
  /** http, https or mailto target of a link. */
  readonly link?: string;
}

export interface Span {
  readonly text: string;
  readonly style: TextStyle;
}

export type Align = 'left' | 'center' | 'right' | 'justify';
/** An alignment that may also name the paragraph's own sides (CSS text-align start and end): left and right for left-to-right text, the other way round for right-to-left. */
export type TextAlign = Align | 'start' | 'end';

export interface Piece {
  readonly runs: readonly Run[];
  readonly width: number;
  readonly style: TextStyle;
  /** Bidi embedding level: odd is right-to-left (its runs are already in visual order). 0 when absent. */
  readonly level?: number;
  /** The text as sent (the runs may hold it mirrored or reversed); the runs' text when absent. */
  readonly text?: string;
}

export interface Unit {
  readonly pieces: Piece[];
  width: number;
  /** Width of the space before the unit, in the style of the text around it; 0 when glued or first. */
  spaceBefore: number;
  /** Bidi level of that space. */
  spaceLevel?: number;
}

export interface Line {
  readonly units: readonly Unit[];
  /** Natural width: units plus the spaces between them. */
  readonly width: number;
  readonly height: number;
  /** From the line's top to its baseline. */
  readonly baseline: number;
  /** The paragraph's last line or one ended by a newline: never justified. */
  readonly last: boolean;
  /** The paragraph is right-to-left: aligned right unless the request aligns it otherwise. */
  readonly rtl: boolean;
  /** The line's text as sent, when shaping drew its glyphs out of character order (REORDERED_SCRIPTS): written as /ActualText. */
  readonly actualText?: string;
  /**
   * The paragraph goes on after a space or a newline: the line ends with a
   * space character, drawn past its last glyph, so text read in content
   * order (a tagged file's structure, ISO 32000-1 §14.8.2.5) does not run
   * the last word of one line into the first of the next. Not after a
   * break inside a word or between CJK characters, which have no space.
   */
  readonly spaceAfter?: boolean;
}

/** Loads every fallback font the spans need; layout itself is synchronous. */
export async function prepareSpans(spans: readonly Span[], fonts: FontBook): Promise<void> {
  for (const span of spans) {
    const loading = fonts.prepare(span.text, span.style);
    if (loading !== undefined) await loading;
  }
}

/**
 * Lines of the spans at `width`. `maxHeight` stops the layout once the lines
 * pass it (absolute text on a page), so a huge text placed near the bottom
 * costs no more than what fits; callers compare the result's height.
 */
export function layoutLines(spans: readonly Span[], width: number, fonts: FontBook, maxHeight = Number.POSITIVE_INFINITY, direction: Direction = 'auto'): Line[] {
  const lines: Line[] = [];
  let units: Unit[] = [];
  let lineWidth = 0;
  let pendingSpace = 0;
  let glue = false;
  let lastStyle: TextStyle | undefined;
  const paragraph = spans.length === 1 ? (spans[0] as Span).text : spans.map((span) => span.text).join('');
  const { base, levels } = paragraphLevels(paragraph, direction);
  const breaks = breakOpportunities(paragraph);
  const traits: ParagraphTraits = { rtl: base === 1, bidi: levels !== undefined, reordered: REORDERED_SCRIPTS.test(paragraph) };
  let pendingSpaceLevel: number = base;

  let height = 0;
  const endLine = (last: boolean, spaceAfter = false) => {
    const line = makeLine(units, lineWidth, last, lastStyle, fonts, traits, spaceAfter);
    lines.push(line);
    height += line.height;
    units = [];
    lineWidth = 0;
  };

  const place = (piece: Piece) => {
    const current = units[units.length - 1];
    if (glue && current !== undefined) {
      if (lineWidth + piece.width > width) {
        // The glued unit no longer fits: it moves to a line of its own...
        if (units.length > 1) {
          units.pop();
          lineWidth -= current.width + current.spaceBefore;
          endLine(false, current.spaceBefore > 0);
          current.spaceBefore = 0;
          units.push(current);
          lineWidth = current.width;
        }
        // ...and if it is too wide even there, it breaks where its styles change
        // (each piece is already no wider than the line).
        if (lineWidth + piece.width > width) {
          endLine(false);
          units.push({ pieces: [piece], width: piece.width, spaceBefore: 0 });
          lineWidth = piece.width;
          return;
        }
      }
      current.pieces.push(piece);
      current.width += piece.width;
      lineWidth += piece.width;
      return;
    }
    const space = units.length === 0 ? 0 : pendingSpace;
    if (units.length > 0 && lineWidth + space + piece.width > width) endLine(false, space > 0);
    const spaceBefore = units.length === 0 ? 0 : space;
    units.push({ pieces: [piece], width: piece.width, spaceBefore, spaceLevel: pendingSpaceLevel });
    lineWidth += spaceBefore + piece.width;
  };

  let offset = 0;
  let style: TextStyle;
  /** A word (in visual order for its bidi level) wider than the line comes back in pieces, each on a line of its own. */
  const placeWord = (word: string, level: number, logical: string) => {
    measure(word, style, width, fonts, level, logical).forEach((piece, index) => {
      if (index > 0) {
        endLine(false);
        glue = false;
      }
      place(piece);
      glue = true;
    });
  };
  for (const span of spans) {
    if (height > maxHeight) break;
    style = span.style;
    lastStyle = style;
    const spaceWidth = fonts.primary(style).widthOf(' ', style.size);
    // Tokens: words, runs of spaces/tabs, and newlines; together they are the whole text, so offsets add up.
    let next = offset;
    for (const token of span.text.match(/\r\n|\n|\r|[ \t]+|[^ \t\r\n]+/g) ?? []) {
      if (height > maxHeight) break;
      const at = next;
      next += token.length;
      if (token === '\n' || token === '\r\n' || token === '\r') {
        endLine(true, true);
        glue = false;
        pendingSpace = 0;
        continue;
      }
      if (token[0] === ' ' || token[0] === '\t') {
        glue = false;
        pendingSpace = spaceWidth;
        pendingSpaceLevel = levels?.[at] ?? base;
        continue;
      }
      if (breaks === undefined && levels === undefined) {
        placeWord(token, 0, token);
        continue;
      }
      for (const [start, end] of segments(token, at, breaks, levels)) {
        // A break opportunity inside the word (between two CJK characters, say): the next piece may start a line.
        const level = levels?.[at + start] ?? 0;
        if (glue && breaks?.has(at + start) === true) {
          glue = false;
          pendingSpace = 0;
          // No space there, so no level of its own: the lower of its neighbours' keeps two pieces of one run (CJK
          // characters at level 2 in a right-to-left paragraph) in one run when the line is reordered.
          pendingSpaceLevel = Math.min(level, levels?.[at + start - 1] ?? level);
        }
        const logical = token.slice(start, end);
        placeWord(visualSegment(logical, level), level, logical);
      }
    }
    offset += span.text.length;
  }
  if (units.length > 0 || lines.length === 0) endLine(true);
  return lines;
}

/**
 * A word cut where a line may break inside it or its bidi level changes, as
 * [start, end) offsets in the word; the whole word when neither happens.
 */
function* segments(word: string, at: number, breaks: ReadonlySet<number> | undefined, levels: Uint8Array | undefined): Generator<[number, number]> {
  let start = 0;
  if (breaks !== undefined || levels !== undefined) {
    for (let i = 1; i < word.length; i++) {
      const code = word.charCodeAt(i);
      if (code >= 0xdc00 && code <= 0xdfff) continue; // inside a surrogate pair
      if (breaks?.has(at + i) === true || (levels !== undefined && levels[at + i] !== levels[at + i - 1])) {
        yield [start, i];
        start = i;
      }
    }
  }
  yield [start, word.length];
}

/**
 * A word as pieces no wider than `width` (one piece unless the word itself
 * is wider). `word` is in visual order for its bidi `level`; `logical` is
 * the text as sent.
 */
function measure(word: string, style: TextStyle, width: number, fonts: FontBook, level = 0, logical = word): Piece[] {
  const runs = visualRuns(fonts.runs(word, style), level);
  const total = runs.reduce((sum, run) => sum + run.font.widthOf(run.text, style.size), 0);
  if (total <= width) return [level === 0 ? { runs, width: total, style } : { runs, width: total, style, level, text: logical }];
  const pieces: Piece[] = [];
  let chars = '';
  let charsWidth = 0;
  for (const char of word) {
    const w = fonts.runs(char, style).reduce((sum, run) => sum + run.font.widthOf(run.text, style.size), 0);
    if (chars !== '' && charsWidth + w > width) {
      pieces.push({ runs: visualRuns(fonts.runs(chars, style), level), width: charsWidth, style, level });
      chars = '';
      charsWidth = 0;
    }
    chars += char;
    charsWidth += w;
  }
  if (chars !== '') pieces.push({ runs: visualRuns(fonts.runs(chars, style), level), width: charsWidth, style, level });
  return pieces;
}

/** A line of units, with its height and baseline (also used by html/pre.ts for preformatted lines). */
/** What a paragraph's lines need beyond left-to-right layout, known once per paragraph. */
export interface ParagraphTraits {
  /** Its base direction is right-to-left. */
  readonly rtl: boolean;
  /** It has bidi levels: its lines are reordered for display. */
  readonly bidi: boolean;
  /** It has text of REORDERED_SCRIPTS: its lines may need /ActualText. */
  readonly reordered: boolean;
}

const LEFT_TO_RIGHT: ParagraphTraits = { rtl: false, bidi: false, reordered: false };

export function makeLine(units: Unit[], width: number, last: boolean, fallbackStyle: TextStyle | undefined, fonts: FontBook, traits = LEFT_TO_RIGHT, spaceAfter = false): Line {
  // Line metrics come from each piece's own family font, not from fallback
  // faces, so a line with one Greek word keeps the paragraph's rhythm.
  let ascent = 0;
  let descent = 0;
  let height = 0;
  const measureStyle = (style: TextStyle) => {
    const font = fonts.primary(style);
    ascent = Math.max(ascent, font.ascent * style.size);
    descent = Math.max(descent, font.descent * style.size);
    height = Math.max(height, style.size * style.lineHeight);
  };
  for (const unit of units) for (const piece of unit.pieces) measureStyle(piece.style);
  if (height === 0 && fallbackStyle !== undefined) measureStyle(fallbackStyle);
  height = Math.max(height, ascent + descent);
  const baseline = (height - (ascent + descent)) / 2 + ascent;
  const visual = traits.bidi ? visualUnits(units) : units;
  const actualText = traits.reordered && !traits.bidi && units.some((unit) => unit.pieces.some((piece) => REORDERED_SCRIPTS.test(pieceText(piece)))) ? logicalText(units) : undefined;
  return { units: visual, width, height, baseline, last, rtl: traits.rtl, spaceAfter, ...(actualText === undefined ? {} : { actualText }) };
}

/**
 * Scripts whose shaped glyphs do not map one to one, in order, onto their
 * characters: Indic vowel signs drawn before their consonant, and Thai, Lao,
 * Khmer and Myanmar marks drawn with no advance over the glyph before them
 * (poppler placed a Thai tone mark at the end of a line on the next line).
 */
export const REORDERED_SCRIPTS = /[\u0900-\u0eff\u1000-\u109f\u1780-\u17ff]/;

const pieceText = (piece: Piece): string => piece.text ?? piece.runs.map((run) => run.text).join('');

function logicalText(units: readonly Unit[]): string {
  return units.map((unit, index) => (index > 0 && unit.spaceBefore > 0 ? ' ' : '') + unit.pieces.map(pieceText).join('')).join('');
}

/** A line's units in display order (bidi rule L2 over its pieces and the spaces between them), regrouped at the spaces. */
function visualUnits(units: readonly Unit[]): Unit[] {
  type Item = { readonly level: number; readonly piece?: Piece; readonly space?: number };
  const items: Item[] = [];
  units.forEach((unit, index) => {
    if (index > 0) items.push({ level: unit.spaceLevel ?? 0, space: unit.spaceBefore });
    for (const piece of unit.pieces) items.push({ level: piece.level ?? 0, piece });
  });
  const visual: Unit[] = [];
  let current: Unit | undefined;
  for (const item of reorder(items)) {
    if (item.piece === undefined) {
      current = undefined;
      if (visual.length > 0) visual.push((current = { pieces: [], width: 0, spaceBefore: item.space ?? 0 }));
      continue;
    }
    if (current === undefined) visual.push((current = { pieces: [], width: 0, spaceBefore: 0 }));
    current.pieces.push(item.piece);
    current.width += item.piece.width;
  }
  return visual.filter((unit) => unit.pieces.length > 0);
}

/** Draws lines from `top`; returns the height used. */
export function drawLines(canvas: PageCanvas, lines: readonly Line[], left: number, top: number, width: number, align: TextAlign | undefined): number {
  let y = top;
  for (const line of lines) {
    drawLine(canvas, line, left, y, width, align);
    y += line.height;
  }
  return y - top;
}

/** The alignment a line is drawn with: the request's, else its paragraph's start side; a justified paragraph's last line sits at its start. */
export function lineAlignment(line: Pick<Line, 'rtl' | 'last'>, align: TextAlign | undefined): Align {
  const start = line.rtl ? 'right' : 'left';
  if (align === undefined || align === 'start' || (align === 'justify' && line.last)) return start;
  if (align === 'end') return line.rtl ? 'left' : 'right';
  return align;
}

/** `align` undefined: the paragraph's start side (right for right-to-left). */
export function drawLine(canvas: PageCanvas, line: Line, left: number, top: number, width: number, align: TextAlign | undefined): void {
  const alignment = lineAlignment(line, align);
  const slack = Math.max(0, width - line.width);
  const gaps = line.units.length - 1;
  const justify = alignment === 'justify' && gaps > 0;
  const extra = justify ? slack / gaps : 0;
  let x = alignment === 'center' ? left + slack / 2 : alignment === 'right' ? left + slack : left;
  const baseline = top + line.baseline;
  if (line.actualText !== undefined) canvas.beginActualText(line.actualText);
  line.units.forEach((unit, index) => {
    const gap = index > 0 ? unit.spaceBefore + extra : 0;
    x += gap;
    unit.pieces.forEach((piece, p) => {
      const { style } = piece;
      const spaced = p === 0 && gap > 0 ? withSpace(piece, gap) : undefined;
      if (spaced === undefined) drawPiece(canvas, piece.runs, x, baseline, style, top, piece.width, line.height);
      else drawPiece(canvas, spaced.runs, x - spaced.width, baseline, style, top, piece.width, line.height);
      x += piece.width;
    });
  });
  if (line.actualText !== undefined) canvas.endActualText();
  if (line.spaceAfter === true && !line.rtl) drawSpaceAfter(canvas, line, x, baseline);
}

/** The space that ends a line whose paragraph goes on (Line.spaceAfter), in its last piece's font, with no decoration or link over it. */
function drawSpaceAfter(canvas: PageCanvas, line: Line, x: number, baseline: number): void {
  const unit = line.units[line.units.length - 1];
  const piece = unit?.pieces[unit.pieces.length - 1];
  const run = piece?.runs[piece.runs.length - 1];
  if (piece === undefined || run === undefined || !run.font.covers(0x20)) return;
  canvas.text([{ font: run.font, text: ' ' }], x, baseline, piece.style.size, piece.style.color);
}

/**
 * Word breaks are space characters (ISO 32000-1 §14.8.2.5, which a tagged
 * PDF follows and tools that read text without positions rely on): the
 * piece with a space glyph before it, drawn that much further left, so the
 * glyphs land where they were, and a line of such pieces is one string
 * (the canvas merges them). Only where the space fits the gap, and not for
 * underlined, struck or linked pieces (the decoration or the link would
 * grow over the space) or right-to-left ones.
 */
function withSpace(piece: Piece, gap: number): { runs: Run[]; width: number } | undefined {
  const { style } = piece;
  const first = piece.runs[0];
  // Right-to-left pieces keep the gap: extractors reorder them, and a space drawn at a word's visual start moved with it (pdftotext joined "hello" to the Hebrew after it).
  if (first === undefined || (piece.level ?? 0) % 2 === 1 || style.underline || style.strike || style.link !== undefined || !first.font.covers(0x20)) return undefined;
  const width = first.font.widthOf(' ', style.size);
  if (width > gap + 0.01) return undefined;
  return { runs: [{ font: first.font, text: ` ${first.text}` }, ...piece.runs.slice(1)], width };
}

/**
 * Draws one piece of a line and its link area. In a tagged render linked
 * text goes in a Link element, which also owns the annotation.
 */
export function drawPiece(canvas: PageCanvas, runs: readonly Run[], x: number, baseline: number, style: TextStyle, top: number, width: number, height: number): void {
  if (style.link === undefined) {
    canvas.text(runs, x, baseline, style.size, style.color, style);
    return;
  }
  const structure = canvas.structure;
  const owner = structure?.link(style.link);
  // A link drawn again as an artifact (a repeated table header) gives its annotation to the Link the tree has, not its text.
  const text = owner !== undefined && !('artifact' in (structure as Structure).target) ? owner : undefined;
  if (text !== undefined) structure?.enter(text);
  canvas.text(runs, x, baseline, style.size, style.color, style);
  canvas.link(x, top, width, height, style.link, owner);
  if (text !== undefined) structure?.close();
}
