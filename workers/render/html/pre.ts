// Lines of preformatted text (<pre>): every space and line break is kept,
// tabs go to the next multiple of eight columns, and a line is broken only
// when it is wider than the box, between characters (code has no natural
// break points, and a wrapped line keeps its characters in order).
//
// inline.ts cannot do this: it collapses runs of spaces (right for prose).
// The lines built here have the same shape as its lines (one unit of styled
// pieces), so drawLine draws them, links and decorations included.
import type { FontBook } from '../fonts.js';
import { makeLine, type Line, type Span, type TextStyle } from '../inline.js';

type Unit = Line['units'][number];
type Piece = Unit['pieces'][number];

const TAB_STOP = 8;

export function preLines(spans: readonly Span[], width: number, fonts: FontBook): Line[] {
  const lines: Line[] = [];
  let pieces: Piece[] = [];
  let lineWidth = 0;
  let column = 0;
  let current: TextStyle | undefined = spans[0]?.style;

  const endLine = () => {
    lines.push(preLine(pieces, lineWidth, current, fonts));
    pieces = [];
    lineWidth = 0;
  };
  const measure = (text: string, style: TextStyle) => {
    const runs = fonts.runs(text, style);
    return { runs, width: runs.reduce((sum, run) => sum + run.font.widthOf(run.text, style.size), 0), style };
  };
  const add = (text: string, style: TextStyle) => {
    const whole = measure(text, style);
    if (lineWidth + whole.width <= width) {
      pieces.push(whole);
      lineWidth += whole.width;
      return;
    }
    // Wider than the box: character by character, a new line whenever the next one would overflow.
    let chars = '';
    let charsWidth = 0;
    for (const char of text) {
      const w = measure(char, style).width;
      if (lineWidth + charsWidth + w > width && lineWidth + charsWidth > 0) {
        if (chars !== '') pieces.push(measure(chars, style));
        lineWidth += charsWidth;
        endLine();
        chars = '';
        charsWidth = 0;
      }
      chars += char;
      charsWidth += w;
    }
    if (chars !== '') {
      pieces.push(measure(chars, style));
      lineWidth += charsWidth;
    }
  };

  for (const span of spans) {
    current = span.style;
    const parts = span.text.split('\n');
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) {
        endLine();
        column = 0;
      }
      const part = parts[i] as string;
      if (part === '') continue;
      const expanded = expandTabs(part, column);
      column += [...expanded].length;
      add(expanded, span.style);
    }
  }
  // A newline right before </pre> ends the last line rather than starting an empty one, as in browsers.
  if (pieces.length > 0 || lines.length === 0) endLine();
  return lines;
}

function expandTabs(text: string, startColumn: number): string {
  if (!text.includes('\t')) return text;
  let out = '';
  let column = startColumn;
  for (const char of text) {
    if (char === '\t') {
      const spaces = TAB_STOP - (column % TAB_STOP);
      out += ' '.repeat(spaces);
      column += spaces;
    } else {
      out += char;
      column++;
    }
  }
  return out;
}

/** A preformatted line: one unit, metrics exactly as inline.ts computes them. */
function preLine(pieces: Piece[], width: number, fallback: TextStyle | undefined, fonts: FontBook): Line {
  return makeLine(pieces.length === 0 ? [] : [{ pieces, width, spaceBefore: 0 }], width, true, fallback, fonts);
}
