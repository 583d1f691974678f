// The block tree into the flow. Text is laid out by inline.ts (pre by
// pre.ts) in a box: `left` points into the flow's content box and `width`
// wide, narrowed by list and blockquote indents. Lines go one by one, so
// any block splits across pages between lines.
//
// Margins collapse: a block's `before` and the previous block's `after`
// give one gap, the larger, which vanishes at the top of a page.
//
// A blockquote's rule is drawn once its extent on a page is known: from its
// first content to where it ends, or to the bottom margin of each page it
// continues past. A list marker waits for the item's first line and sits
// on that line's baseline, whatever block the line belongs to; a
// right-to-left list (dir or CSS direction rtl) has its markers and indent
// at the right, as browsers draw it.
import type { PageCanvas, Rgb } from '../canvas.js';
import { RenderError, withGlyphCheck } from '../errors.js';
import type { RenderContext } from '../context.js';
import { checkLineHeights } from '../flow.js';
import { drawImage, loadImage } from '../images.js';
import { drawLine, layoutLines, prepareSpans, type Align, type Line, type TextAlign } from '../inline.js';
import type { Block, ImageBlock, ListBlock, QuoteBlock, TextBlock } from './blocks.js';
import { fitImage } from './image.js';
import { preLines } from './pre.js';
import { drawHtmlTable, TABLE_PADDING } from './table.js';
import { htmlAltRequired } from '../tagging/alt-check.js';
import type { Element, Structure } from '../tagging/structure.js';

export interface Box {
  readonly left: number;
  readonly width: number;
}

/** Indents stop before a box gets narrower than this (64 nested lists would otherwise squeeze text to nothing). */
const MIN_WIDTH = 72;
/** Indents and gaps in ems of the list's or quote's font size. */
const LIST_INDENT = 1.5;
const MARKER_GAP = 0.5;
const QUOTE_INDENT = 1.5;
const QUOTE_RULE_AT = 0.5;
const QUOTE_RULE_WIDTH = 0.15;
const QUOTE_RULE_COLOR: Rgb = Object.freeze({ r: 0.75, g: 0.75, b: 0.75 });
const HR_THICKNESS = 0.75;
const HR_COLOR: Rgb = Object.freeze({ r: 0.6, g: 0.6, b: 0.6 });
const IMAGE_SHARE: Record<Align, number> = { left: 0, justify: 0, center: 0.5, right: 1 };

interface QuoteRule {
  /** x of the rule, from the page's left edge. */
  readonly x: number;
  readonly width: number;
  /** The page and top where the rule's current segment starts; undefined until the quote draws something. */
  page: PageCanvas | undefined;
  top: number;
}

interface Marker {
  readonly line: Line;
  /** The item's Lbl element in a tagged render. */
  readonly label: Element | undefined;
  /** The gutter the marker is aligned in (towards the item's text), from the flow's left. */
  readonly left: number;
  readonly width: number;
  /** Right in a left-to-right list's gutter (at the left), left in a right-to-left one's (at the right). */
  readonly align: 'left' | 'right';
}

export class HtmlLayout {
  #gap = 0;
  readonly #quotes: QuoteRule[] = [];
  /** Markers of list items (nested items may start on the same line) waiting for their first line. */
  #markers: Marker[] = [];

  constructor(
    private readonly context: RenderContext,
    /** The html field, for errors (missing glyphs, bad images). */
    private readonly field: string,
  ) {}

  async blocks(blocks: readonly Block[], box: Box): Promise<void> {
    for (const block of blocks) {
      this.#gap = Math.max(this.#gap, block.before);
      switch (block.kind) {
        case 'text':
          await this.#text(block, box);
          break;
        case 'pre': {
          await prepareSpans(block.spans, this.context.fonts);
          const lines = withGlyphCheck(this.field, () => preLines(block.spans, box.width, this.context.fonts));
          this.#structure?.open('P');
          this.#lines(lines, box, 'left');
          this.#structure?.close();
          break;
        }
        case 'list':
          await this.#list(block, box);
          break;
        case 'quote':
          await this.#quote(block, box);
          break;
        case 'rule': {
          const top = this.#place(HR_THICKNESS);
          this.context.flow.page.fillRect(this.context.flow.left + box.left, top, box.width, HR_THICKNESS, HR_COLOR);
          this.#drawMarkers(top + HR_THICKNESS);
          this.context.flow.advance(HR_THICKNESS);
          break;
        }
        case 'table': {
          // Room for about a row first, so a marker waiting for the table lands on the table's page, level with its first row.
          const top = this.#place(2 * block.size);
          const first = this.#markers[0];
          if (first !== undefined) this.#drawMarkers(top + TABLE_PADDING * block.size + first.line.baseline);
          await drawHtmlTable(this.context, block, this.field, box.left, box.width);
          break;
        }
        case 'image':
          await this.#image(block, box);
          break;
      }
      this.#gap = Math.max(this.#gap, block.after);
    }
  }

  /** After the last block: the last margin moves the cursor, as add_text's spacing_after does. */
  finish(): void {
    const { flow } = this.context;
    if (this.#gap > 0 && !flow.atTop) flow.advance(this.#gap);
    this.#gap = 0;
  }

  async #text(block: TextBlock, box: Box): Promise<void> {
    const { fonts, flow } = this.context;
    await prepareSpans(block.spans, fonts);
    const lines = withGlyphCheck(this.field, () => layoutLines(block.spans, box.width, fonts, Number.POSITIVE_INFINITY, block.direction));
    if (block.keep > 0) {
      // A heading moves to the next page with the start of what follows it, unless it could never fit.
      const height = lines.reduce((sum, line) => sum + line.height, 0) + block.keep;
      if (height <= flow.contentHeight) this.#place(height);
    }
    let role = 'P';
    if (block.heading !== undefined) {
      // The outline points at the heading's first line, where the flow puts it.
      const top = this.#place(lines[0]?.height ?? 0);
      role = `H${this.context.headings.add(block.heading, block.spans.map((span) => span.text).join(''), flow.page, top)}`;
    }
    this.#structure?.open(role);
    this.#lines(lines, box, block.align);
    this.#structure?.close();
  }

  /** The document's structure tree in a tagged render. */
  get #structure(): Structure | undefined {
    return this.context.flow.structure;
  }

  #lines(lines: readonly Line[], box: Box, align: TextAlign): void {
    const { flow } = this.context;
    checkLineHeights(lines, flow.contentHeight, this.field);
    for (const line of lines) {
      const top = this.#place(line.height);
      drawLine(flow.page, line, flow.left + box.left, top, box.width, align);
      this.#drawMarkers(top + line.baseline);
      flow.advance(line.height);
    }
  }

  async #list(block: ListBlock, box: Box): Promise<void> {
    const { fonts } = this.context;
    const markers: (Line | undefined)[] = [];
    const rtl = block.direction === 'rtl';
    let widest = 0;
    for (const item of block.items) {
      if (item.marker === undefined) {
        markers.push(undefined);
        continue;
      }
      await prepareSpans([item.marker], fonts);
      // In the list's direction: "3." in a right-to-left list reads ".3" from the left, as browsers show it.
      const line = withGlyphCheck(this.field, () => layoutLines([item.marker as NonNullable<typeof item.marker>], Number.POSITIVE_INFINITY, fonts, Number.POSITIVE_INFINITY, rtl ? 'rtl' : 'ltr')[0] as Line);
      markers.push(line);
      widest = Math.max(widest, line.width);
    }
    // A hanging indent wide enough for the widest marker ("10." needs more than "•").
    const gap = MARKER_GAP * block.size;
    const indent = this.#indent(Math.max(LIST_INDENT * block.size, widest + gap), box);
    const inner = { left: rtl ? box.left : box.left + indent, width: box.width - indent };
    const gutter = rtl ? box.left + box.width - indent + gap : box.left;
    const structure = this.#structure;
    structure?.open('L');
    for (const [index, item] of block.items.entries()) {
      const line = markers[index];
      // L > LI > Lbl, LBody (ISO 32000-1 §14.8.4.3.3): the label's element comes first, drawn once the body's first line is.
      structure?.open('LI');
      const label = line === undefined || indent <= gap ? undefined : structure?.child('Lbl');
      // Lists nested past the point where indents stop (MIN_WIDTH) have no gutter, and no marker to put in it.
      if (line !== undefined && indent > gap) this.#markers.push({ line, label, left: gutter, width: indent - gap, align: rtl ? 'left' : 'right' });
      structure?.open('LBody');
      await this.blocks(item.blocks, inner);
      structure?.close();
      // An item with nothing to draw still shows its marker, on a line of its own.
      if (line !== undefined && this.#markers.some((marker) => marker.line === line)) {
        const top = this.#place(line.height);
        this.#drawMarkers(top + line.baseline);
        this.context.flow.advance(line.height);
      }
      structure?.close();
    }
    structure?.close();
  }

  async #quote(block: QuoteBlock, box: Box): Promise<void> {
    const { flow } = this.context;
    const indent = this.#indent(QUOTE_INDENT * block.size, box);
    const rule: QuoteRule = {
      x: flow.left + box.left + Math.min(QUOTE_RULE_AT * block.size, indent / 2),
      width: Math.max(0.5, QUOTE_RULE_WIDTH * block.size),
      page: undefined,
      top: 0,
    };
    this.#quotes.push(rule);
    this.#structure?.open('BlockQuote');
    await this.blocks(block.blocks, { left: box.left + indent, width: box.width - indent });
    this.#structure?.close();
    this.#syncQuotes();
    this.#quotes.pop();
    if (rule.page !== undefined) this.#rule(rule, flow.page, rule.top, Math.min(flow.cursor, flow.page.height - flow.margins.bottom));
  }

  async #image(block: ImageBlock, box: Box): Promise<void> {
    const { flow } = this.context;
    const structure = this.#structure;
    if (structure?.pdfUa === true && block.alt === undefined) throw new RenderError([htmlAltRequired(this.field)]);
    const image = await loadImage(this.context, block.bytes, this.field);
    const pageHeight = Math.max(1, flow.contentHeight);
    const [width, height] = fitImage(image, block.width, block.height, box.width, pageHeight);
    const top = this.#place(height);
    // Width and height both given stretch the image to them, as browsers do.
    if (structure !== undefined) structure.enter(structure.figure(block.alt));
    drawImage(flow.page, image, flow.left + box.left + (box.width - width) * IMAGE_SHARE[block.align], top, width, height, 'fill');
    structure?.close();
    this.#drawMarkers(top + height);
    flow.advance(height);
  }

  #indent(wanted: number, box: Box): number {
    return Math.min(wanted, Math.max(0, box.width - MIN_WIDTH));
  }

  /** Gets the cursor ready for something `height` tall: the pending gap, a page break if needed, rules carried over. Returns its top. */
  #place(height: number): number {
    const { flow } = this.context;
    if (this.#gap > 0) {
      if (!flow.atTop) flow.advance(this.#gap);
      this.#gap = 0;
    }
    flow.ensure(height);
    this.#syncQuotes();
    return flow.cursor;
  }

  /** Draws the waiting markers with their baselines at `baseline` (from the page top). */
  #drawMarkers(baseline: number): void {
    if (this.#markers.length === 0) return;
    const { flow } = this.context;
    const structure = this.#structure;
    for (const marker of this.#markers) {
      if (marker.label !== undefined) structure?.enter(marker.label);
      drawLine(flow.page, marker.line, flow.left + marker.left, baseline - marker.line.baseline, marker.width, marker.align);
      if (marker.label !== undefined) structure?.close();
    }
    this.#markers = [];
  }

  /** Starts the rules of quotes that begin here, and closes segments of rules on pages the flow has left. */
  #syncQuotes(): void {
    const { flow } = this.context;
    for (const rule of this.#quotes) {
      if (rule.page === undefined) {
        rule.page = flow.page;
        rule.top = flow.cursor;
        continue;
      }
      if (rule.page === flow.page) continue;
      // The quote went on over page breaks (a table may have made several): each page left gets the rule down to its bottom margin.
      const pages = flow.pages;
      for (let index = pages.indexOf(rule.page); index >= 0 && index < pages.length && pages[index] !== flow.page; index++) {
        const page = pages[index] as PageCanvas;
        this.#rule(rule, page, page === rule.page ? rule.top : flow.margins.top, page.height - flow.margins.bottom);
      }
      rule.page = flow.page;
      rule.top = flow.margins.top;
    }
  }

  #rule(rule: QuoteRule, page: PageCanvas, top: number, bottom: number): void {
    if (bottom > top) page.fillRect(rule.x - rule.width / 2, top, rule.width, bottom - top, QUOTE_RULE_COLOR);
  }
}
