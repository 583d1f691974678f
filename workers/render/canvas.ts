// One page's drawing, written straight into content-stream operators (ISO
// 32000-1 sections 8 and 9). Callers use top-left coordinates in points, as
// people measure a page; this class turns them into PDF space (origin
// bottom-left). Text arrives already encoded by its font as a string operand
// (escaped literal for the standard fonts, hex for embedded ones), so
// nothing a client sends can become PDF syntax.
import type { Font, Image, LinkArea, PageContent } from '../seams/pdf.js';
import type { Run } from './fonts.js';
import { PageMarks, type ContentKind } from './tagging/marked-content.js';
import type { Element, Structure } from './tagging/structure.js';

export interface Rgb {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

export const BLACK: Rgb = Object.freeze({ r: 0, g: 0, b: 0 });

/** Two decimal places are 1/7200 in, finer than any printer. */
function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Past this many hundredths, String() of the rounded value (it may use an exponent) is written as before. */
const FIXED_LIMIT = 1e15;

/**
 * A compact decimal operand: the value rounded to two decimals, written as
 * String(round2(value)) writes it (no trailing zeros, no exponent in range),
 * but from the integer hundredths: the shortest decimal of k/100 is k's
 * digits with the point put back, so the bytes are the same (checked on
 * 2 million random values), at a quarter of the time (a loop of page
 * coordinates: 90 against 350 ns an operand; a table page writes thousands).
 * A number that is not finite is a bug upstream (an HTML tag once looked up
 * `constructor` as a heading size): it would write `NaN` into the stream,
 * which qpdf accepts and viewers silently misdraw, so it throws, and the
 * request fails as a 500 instead.
 */
export function n(value: number): string {
  const hundredths = Math.round(value * 100);
  if (!(hundredths > -FIXED_LIMIT && hundredths < FIXED_LIMIT)) {
    if (!Number.isFinite(value)) throw new Error(`a content-stream operand is ${value}`);
    return String(hundredths / 100);
  }
  // Whole numbers (and -0, which String writes as 0) come from V8's cache of small integers' strings.
  if (hundredths % 100 === 0) return String(hundredths / 100);
  const magnitude = hundredths < 0 ? -hundredths : hundredths;
  const fraction = magnitude % 100;
  const whole = (magnitude - fraction) / 100;
  const decimals = fraction < 10 ? `.0${fraction}` : fraction % 10 === 0 ? `.${fraction / 10}` : `.${fraction}`;
  return `${hundredths < 0 ? '-' : ''}${whole}${decimals}`;
}

function color(c: Rgb): string {
  return `${n(c.r)} ${n(c.g)} ${n(c.b)}`;
}

export interface TextDecoration {
  readonly underline?: boolean;
  readonly strike?: boolean;
}

/** The graphics state the stream has set, so operators are written only when something changes. */
interface GraphicsState {
  fill: string;
  stroke: string;
  lineWidth: string;
}

export class PageCanvas {
  readonly #ops: string[] = [];
  readonly #fonts = new Set<Font>();
  readonly #images = new Set<Image>();
  readonly #links: LinkArea[] = [];
  readonly #linkOwners: (Element | undefined)[] = [];
  /**
   * Consecutive text shares one BT..ET text object, and colour, font and
   * line width are written only when they change: a table page had every
   * cell repeat them, which tripled the stream and its deflate time.
   */
  #inText = false;
  #font: Font | undefined;
  #fontSize = 0;
  /** Start of the current text line (Td is relative to it), as written: rounded to 2 decimals. */
  #lineX = 0;
  #lineY = 0;
  /**
   * Text shown since the last Td, not yet written: the operands of one TJ
   * (strings, and between them the adjustments that move the pen to where
   * the next piece starts), so a line of words drawn piece by piece is one
   * operator, not a Td and a Tj per word. #shownAt is the Td before it.
   */
  #shown: string | undefined;
  #shownAt = '';
  #adjusted = false;
  /** Where a reader's pen stands after #shown (PDF space): its start plus the glyphs' advances, less the adjustments as written. */
  #penX = 0;
  #state: GraphicsState = { fill: '0 0 0', stroke: '0 0 0', lineWidth: '1' };
  /**
   * The colour objects #state's fill and stroke were last written from:
   * styles share their Rgb objects, so the same object again needs no
   * operand string built to be compared (a table page asks once per cell).
   */
  #fillFrom: Rgb | undefined;
  #strokeFrom: Rgb | undefined;
  readonly #saved: GraphicsState[] = [];
  /** The clip rectangles clip() set, innermost last, in PDF space (x1 y1 x2 y2): a Figure's box is its image within them. */
  readonly #clips: [number, number, number, number][] = [];
  /** Marked content of a tagged render; undefined otherwise. */
  readonly #marks: PageMarks | undefined;
  /**
   * The open marked-content sequence began inside the current text object
   * (BT..ET), so it ends inside it: sequences and text objects nest
   * (ISO 32000-1 §14.6, Figure 9 allows BDC/EMC inside BT..ET). Text opens
   * its sequences inside a text object, so the cells of a table row or the
   * paragraphs of a page share one BT..ET as they do untagged; images and
   * paths open theirs outside.
   */
  #openedInText = false;

  constructor(
    readonly width: number,
    readonly height: number,
    /** The document's structure tree, when it is tagged. */
    readonly structure?: Structure,
  ) {
    this.#marks = structure === undefined ? undefined : new PageMarks(structure, this);
  }

  /**
   * Draws runs left to right from x on the baseline at `baseline` (from the
   * top). Returns the width drawn.
   */
  text(runs: readonly Run[], x: number, baseline: number, size: number, fill: Rgb, decoration: TextDecoration = {}): number {
    const y = round2(this.height - baseline);
    const ops = this.#ops;
    this.#mark('content', true);
    this.#beginText();
    this.#fill(fill);
    let cursor = x;
    for (const run of runs) {
      const { font } = run;
      this.#fonts.add(font);
      const encoded = font.encode(run.text);
      const advance = font.widthOf(run.text, size);
      if (this.#shown !== undefined && font === this.#font && size === this.#fontSize && y === this.#lineY && this.#continues(encoded, cursor, size)) {
        this.#penX += advance;
        cursor += advance;
        continue;
      }
      this.#flushShown();
      if (font !== this.#font || size !== this.#fontSize) {
        ops.push(`/${font.key} ${n(size)} Tf`);
        this.#font = font;
        this.#fontSize = size;
      }
      // Relative moves (Td) from rounded positions: shorter than a full Tm, and no drift.
      const at = round2(cursor);
      this.#shownAt = `${n(at - this.#lineX)} ${n(y - this.#lineY)} Td `;
      this.#shown = encoded;
      this.#adjusted = false;
      this.#penX = at + advance;
      this.#lineX = at;
      this.#lineY = y;
      cursor += advance;
    }
    const width = cursor - x;
    // Line positions and thickness follow common type metrics (about 1/10 and 1/20 em).
    if (decoration.underline === true) this.fillRect(x, baseline + size * 0.1, width, size * 0.05, fill);
    if (decoration.strike === true) this.fillRect(x, baseline - size * 0.28, width, size * 0.05, fill);
    return width;
  }

  fillRect(x: number, top: number, width: number, height: number, fill: Rgb): void {
    this.#mark('path', false);
    this.#endText();
    this.#fill(fill);
    this.#ops.push(`${n(x)} ${n(this.height - top - height)} ${n(width)} ${n(height)} re f`);
  }

  strokeRect(x: number, top: number, width: number, height: number, stroke: Rgb, lineWidth: number): void {
    this.#mark('path', false);
    this.#endText();
    this.#stroke(stroke, lineWidth);
    this.#ops.push(`${n(x)} ${n(this.height - top - height)} ${n(width)} ${n(height)} re S`);
  }

  line(x1: number, top1: number, x2: number, top2: number, stroke: Rgb, lineWidth: number): void {
    this.#mark('path', false);
    this.#endText();
    this.#stroke(stroke, lineWidth);
    this.#ops.push(`${n(x1)} ${n(this.height - top1)} m ${n(x2)} ${n(this.height - top2)} l S`);
  }

  image(image: Image, x: number, top: number, width: number, height: number): void {
    this.#mark('content', false);
    this.#endText();
    this.#images.add(image);
    this.#figureBox(x, this.height - top - height, x + width, this.height - top);
    this.#ops.push(`q ${n(width)} 0 0 ${n(height)} ${n(x)} ${n(this.height - top - height)} cm /${image.key} Do Q`);
  }

  /** Clips what follows to a rectangle until restore() (used for `cover` images). */
  clip(x: number, top: number, width: number, height: number): void {
    // The clipped image's sequence opens outside its q..Q, so the two nest.
    this.#mark('content', false);
    this.#endText();
    this.#saved.push({ ...this.#state });
    this.#clips.push([x, this.height - top - height, x + width, this.height - top]);
    this.#ops.push(`q ${n(x)} ${n(this.height - top - height)} ${n(width)} ${n(height)} re W n`);
  }

  /** Gives the Figure the image is drawn for (tagged renders) its box: the image's rectangle, within the clip around it. */
  #figureBox(x1: number, y1: number, x2: number, y2: number): void {
    const figure = this.structure?.target;
    if (figure === undefined || !('role' in figure) || figure.role !== 'Figure') return;
    const clip = this.#clips[this.#clips.length - 1];
    figure.bbox = clip === undefined ? [x1, y1, x2, y2] : [Math.max(x1, clip[0]), Math.max(y1, clip[1]), Math.min(x2, clip[2]), Math.min(y2, clip[3])];
  }

  /**
   * Starts a span whose text for extraction is `text` (ISO 32000-1 §14.9.4
   * /ActualText), for glyphs drawn in another order than their characters.
   * Outside text objects, so the span and BT/ET nest whatever the span draws.
   */
  beginActualText(text: string): void {
    // The structure's sequence opens around the span, which must not change inside it: outside text objects,
    // so one opened in the text object before is closed and opened again (another MCID of the same element).
    if (this.#openedInText) this.#closeSequence();
    this.#mark('content', false);
    this.#marks?.beginSpan();
    this.#endText();
    let hex = 'FEFF';
    for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0');
    this.#ops.push(`/Span <</ActualText <${hex}>>> BDC`);
  }

  endActualText(): void {
    this.#endText();
    this.#ops.push('EMC');
    this.#marks?.endSpan();
  }

  restore(): void {
    this.#endText();
    this.#clips.pop();
    this.#state = this.#saved.pop() ?? this.#state;
    // Q restored the colours in force at q: what was last written is no longer known to be them.
    this.#fillFrom = undefined;
    this.#strokeFrom = undefined;
    this.#ops.push('Q');
  }

  /**
   * Opens the marked-content sequence what is drawn next belongs in (tagged
   * renders only): inside a text object for text (`inText`), outside one
   * for images and paths. The sequence before it is closed where it opened.
   */
  #mark(kind: ContentKind, inText: boolean): void {
    const marks = this.#marks;
    const target = marks?.next(kind);
    if (marks === undefined || target === undefined) return;
    this.#closeSequence();
    if (inText) this.#beginText();
    else this.#endText();
    this.#ops.push(marks.begin(target));
    this.#openedInText = inText;
  }

  /** Ends the open marked-content sequence, inside the text object it began in, or outside text objects. */
  #closeSequence(): void {
    const end = this.#marks?.close();
    if (end === undefined) return;
    if (this.#openedInText) this.#flushShown();
    else this.#endText();
    this.#ops.push(end);
    this.#openedInText = false;
  }

  #beginText(): void {
    if (this.#inText) return;
    this.#ops.push('BT');
    this.#inText = true;
    // Tf and the line matrix are text state, which does not outlive the text object.
    this.#font = undefined;
    this.#lineX = 0;
    this.#lineY = 0;
  }

  /**
   * Adds `encoded`, drawn from `x`, to the pending TJ when it follows the
   * text before it on the line: its start no further from the pen than an
   * em (the gap between two words, or a justified line's wider one; a jump
   * across a table's columns gets its own Td, as readers expect of
   * separate text). The adjustment is in thousandths of an em, positive to
   * the left (ISO 32000-1 §9.4.3), rounded as written so the pen stays
   * where a reader computes it; none at all when the piece starts where the
   * pen is (a word drawn with its space before it), and then the strings
   * merge into one.
   */
  #continues(encoded: string, x: number, size: number): boolean {
    const gap = x - this.#penX;
    if (gap < -0.01 || gap > size) return false;
    const adjustment = Math.round((-gap * 1000) / size);
    if (adjustment === 0) {
      this.#shown = (this.#shown as string).slice(0, -1) + encoded.slice(1);
      return true;
    }
    this.#shown += `${adjustment}${encoded}`;
    this.#adjusted = true;
    this.#penX -= (adjustment * size) / 1000;
    return true;
  }

  /** Writes the text shown since the last Td. */
  #flushShown(): void {
    const shown = this.#shown;
    if (shown === undefined) return;
    this.#ops.push(this.#adjusted ? `${this.#shownAt}[${shown}] TJ` : `${this.#shownAt}${shown} Tj`);
    this.#shown = undefined;
  }

  #endText(): void {
    if (!this.#inText) return;
    // A sequence that began in this text object ends in it.
    if (this.#openedInText) this.#closeSequence();
    else this.#flushShown();
    this.#ops.push('ET');
    this.#inText = false;
  }

  #fill(c: Rgb): void {
    if (c === this.#fillFrom) return;
    this.#fillFrom = c;
    const value = color(c);
    if (value === this.#state.fill) return;
    this.#state.fill = value;
    this.#flushShown();
    this.#ops.push(`${value} rg`);
  }

  #stroke(c: Rgb, lineWidth: number): void {
    if (c !== this.#strokeFrom) {
      this.#strokeFrom = c;
      const value = color(c);
      if (value !== this.#state.stroke) {
        this.#state.stroke = value;
        this.#ops.push(`${value} RG`);
      }
    }
    const width = n(lineWidth);
    if (width !== this.#state.lineWidth) {
      this.#state.lineWidth = width;
      this.#ops.push(`${width} w`);
    }
  }

  /**
   * A link area. Text is drawn word by word, so a link of several words
   * arrives in pieces; pieces on the same line with the same target merge
   * into one annotation (one click target, as a reader expects). In a
   * tagged render `owner` is the link's Link element, which gets an object
   * reference to each annotation.
   */
  link(x: number, top: number, width: number, height: number, uri: string, owner?: Element): void {
    const y = this.height - top - height;
    const last = this.#links[this.#links.length - 1];
    // Adjacent: on the same line and no further apart than a wide space.
    if (last !== undefined && last.uri === uri && this.#linkOwners[this.#links.length - 1] === owner && last.y === y && last.height === height && x >= last.x && x - (last.x + last.width) <= height) {
      this.#links[this.#links.length - 1] = { ...last, width: x + width - last.x };
      return;
    }
    owner?.add({ page: this, link: this.#links.length });
    this.#linkOwners.push(owner);
    this.#links.push({ x, y, width, height, uri });
  }

  /**
   * Joins the operators written so far into one string: a page the flow
   * has left holds its content as one object, not thousands of small
   * strings that every scavenge of the rest of the render copies again
   * (a 10-page invoice's pages were most of what survived them). Drawing
   * on the page afterwards (headers and footers) appends as before.
   */
  compact(): void {
    const ops = this.#ops;
    if (ops.length < 2) return;
    const joined = ops.join('\n');
    ops.length = 0;
    ops.push(joined);
  }

  content(): PageContent {
    this.#endText();
    this.#closeSequence();
    return {
      width: this.width,
      height: this.height,
      operators: this.#ops.join('\n'),
      fonts: this.#fonts,
      images: this.#images,
      links: this.#links,
    };
  }
}
