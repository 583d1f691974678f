// parse5's DOM into the block tree of blocks.ts: blocks with the margins
// HTML's default style sheet gives them, anonymous paragraphs for inline
// content between blocks, list markers, tables and images.
//
// The walk recurses once per element level, so nesting is bounded: below
// MAX_DEPTH an element's text is gathered iteratively and joins the text
// around it, unstyled. 10,000 nested <div>s therefore cost a loop, not a
// stack overflow.
import type { Direction } from '../bidi.js';
import type { Align, TextStyle } from '../inline.js';
import { MAX_COLUMNS } from '../table-layout.js';
import type { Block, ListItem, Margins, TableCellData } from './blocks.js';
import { scopeOf, type Scope } from './cascade.js';
import { flattenBlocks } from './flatten.js';
import { imageBytes, pixelsToPoints } from './image.js';
import { attribute, isElement, isText, type HtmlElement, type HtmlNode, type HtmlParent } from './parse.js';
import { CONTAINERS, DROPPED, HEADINGS, HTML_NAMESPACE, isInline, PRE_TAGS } from './tags.js';
import { InlineText } from './whitespace.js';

export const MAX_DEPTH = 64;

/** Bullets by list nesting, as browsers draw disc, circle and square. */
const BULLETS = ['•', '◦', '▪'] as const;

/** Margins in ems of the element's own size. */
const PARAGRAPH_MARGIN = 0.5;
const HEADING_BEFORE = 0.75;
const HEADING_AFTER = 0.35;
/** List numbers (start, value) are clamped to ±1,000,000: enough for any real list, and a marker stays a few characters. */
const MAX_LIST_NUMBER = 1_000_000;

/** Where a container's children go: finished blocks, and the anonymous paragraph being gathered. */
class Sink {
  readonly blocks: Block[] = [];
  readonly inline: InlineText;

  constructor(
    private readonly scope: Scope,
    /** Keep-with-next for the text blocks made here (headings). */
    private readonly keep = 0,
    /** Heading level of the text blocks made here (1-6 in <h1>-<h6>). */
    private readonly heading?: number,
  ) {
    this.inline = new InlineText(scope.pre);
  }

  /** Ends the anonymous paragraph gathered so far, if it has anything to show. */
  flush(): void {
    const spans = this.inline.take();
    if (spans === undefined) return;
    if (this.scope.pre) this.blocks.push({ kind: 'pre', spans, before: 0, after: 0 });
    else this.blocks.push({ kind: 'text', spans, align: this.scope.align, direction: this.scope.direction, keep: this.keep, before: 0, after: 0, ...(this.heading === undefined ? {} : { heading: this.heading }) });
  }

  add(block: Block): void {
    this.flush();
    this.blocks.push(block);
  }

  /** Moves another sink's blocks here (a loop: spreading 100,000 blocks as arguments would overflow the stack). */
  addAll(blocks: readonly Block[]): void {
    this.flush();
    for (const block of blocks) this.blocks.push(block);
  }
}

/**
 * The blocks of a parsed fragment. `field` names the html field for errors
 * (bad image data); `direction` is the document's (an <html dir> the parse
 * kept), auto when it has none.
 */
export function buildBlocks(fragment: HtmlParent, base: TextStyle, field: string, direction: Direction = 'auto'): Block[] {
  const walker = new Walker(field);
  const root: Scope = { style: base, align: 'start', direction, pre: false, lists: 0, depth: 0 };
  const sink = new Sink(root);
  walker.children(fragment, root, sink);
  sink.flush();
  return sink.blocks;
}

class Walker {
  constructor(private readonly field: string) {}

  children(parent: HtmlParent, scope: Scope, sink: Sink): void {
    for (const child of parent.childNodes) this.node(child, scope, sink);
  }

  node(node: HtmlNode, scope: Scope, sink: Sink): void {
    if (isText(node)) sink.inline.text(node.value, scope.style);
    else if (isElement(node)) this.element(node, scope, sink);
  }

  element(element: HtmlElement, parent: Scope, sink: Sink): void {
    if (element.namespaceURI !== HTML_NAMESPACE || DROPPED.has(element.tagName)) return;
    if (parent.depth >= MAX_DEPTH) {
      sink.inline.text(textOf(element), parent.style);
      return;
    }
    const scope = scopeOf(element, parent);
    const tag = element.tagName;
    const size = scope.style.size;
    const heading = HEADINGS.get(tag);
    if (heading !== undefined) {
      // Keep a heading with two lines of what follows it.
      this.container(element, scope, sink, { before: HEADING_BEFORE * size, after: HEADING_AFTER * size }, 2 * parent.style.size * parent.style.lineHeight, Number(tag.slice(1)));
      return;
    }
    switch (tag) {
      case 'br':
        sink.inline.lineBreak(scope.style);
        return;
      case 'hr':
        sink.add({ kind: 'rule', size, before: PARAGRAPH_MARGIN * size, after: PARAGRAPH_MARGIN * size });
        return;
      case 'img':
        this.image(element, scope, sink);
        return;
      case 'p':
        this.container(element, scope, sink, { before: PARAGRAPH_MARGIN * size, after: PARAGRAPH_MARGIN * size });
        return;
      case 'blockquote': {
        const inner = this.inner(element, scope);
        if (inner.length > 0) sink.add({ kind: 'quote', blocks: inner, size, before: PARAGRAPH_MARGIN * size, after: PARAGRAPH_MARGIN * size });
        return;
      }
      case 'ul':
      case 'ol':
        this.list(element, scope, sink, tag === 'ol');
        return;
      case 'table':
        this.table(element, scope, sink);
        return;
      default:
        if (PRE_TAGS.has(tag)) this.container(element, scope, sink, { before: PARAGRAPH_MARGIN * size, after: PARAGRAPH_MARGIN * size });
        else if (CONTAINERS.has(tag)) this.container(element, scope, sink, { before: 0, after: 0 });
        // Inline elements, known or not: their text, in their style.
        else this.children(element, scope, sink);
    }
  }

  /** A block element: its content as blocks, its margins collapsed with its first and last child's (CSS 2.1 section 8.3.1). */
  container(element: HtmlElement, scope: Scope, sink: Sink, margins: Margins, keep = 0, heading?: number): void {
    const blocks = this.inner(element, scope, keep, heading);
    const first = blocks[0];
    const last = blocks[blocks.length - 1];
    if (first === undefined || last === undefined) {
      sink.flush();
      return;
    }
    first.before = Math.max(first.before, margins.before);
    last.after = Math.max(last.after, margins.after);
    sink.addAll(blocks);
  }

  inner(element: HtmlElement, scope: Scope, keep = 0, heading?: number): Block[] {
    const sink = new Sink(scope, keep, heading);
    this.children(element, scope, sink);
    sink.flush();
    return sink.blocks;
  }

  list(element: HtmlElement, scope: Scope, sink: Sink, ordered: boolean): void {
    const itemScope: Scope = { ...scope, lists: scope.lists + 1 };
    const bullet = BULLETS[Math.min(scope.lists, BULLETS.length - 1)] as string;
    let number = integerAttribute(element, 'start', -MAX_LIST_NUMBER, MAX_LIST_NUMBER) ?? 1;
    const items: ListItem[] = [];
    // Content of the list outside any <li> (parse5 keeps `<ul>text<p>..</p></ul>` as written): an item without a marker.
    let loose: Sink | undefined;
    const endLoose = () => {
      if (loose === undefined) return;
      loose.flush();
      if (loose.blocks.length > 0) items.push({ marker: undefined, blocks: loose.blocks });
      loose = undefined;
    };
    for (const child of element.childNodes) {
      if (isElement(child) && child.tagName === 'li' && child.namespaceURI === HTML_NAMESPACE && itemScope.depth < MAX_DEPTH) {
        endLoose();
        const liScope = scopeOf(child, itemScope);
        number = integerAttribute(child, 'value', -MAX_LIST_NUMBER, MAX_LIST_NUMBER) ?? number;
        const marker = ordered ? `${number++}.` : bullet;
        // The marker takes the item's font and colour, never its link or decorations.
        const markerStyle: TextStyle = { ...liScope.style, underline: false, strike: false, link: undefined };
        items.push({ marker: { text: marker, style: markerStyle }, blocks: this.inner(child, liScope) });
      } else {
        loose ??= new Sink(itemScope);
        this.node(child, itemScope, loose);
      }
    }
    endLoose();
    if (items.length === 0) return;
    // Lists inside lists have no margins of their own (the HTML standard's rendering section).
    const margin = scope.lists === 0 ? PARAGRAPH_MARGIN * scope.style.size : 0;
    sink.add({ kind: 'list', items, direction: scope.direction, size: scope.style.size, before: margin, after: margin });
  }

  table(element: HtmlElement, scope: Scope, sink: Sink): void {
    const header: TableCellData[][] = [];
    const rows: TableCellData[][] = [];
    const row = (tr: HtmlElement, sectionScope: Scope, into: TableCellData[][]) => {
      const rowScope = scopeOf(tr, sectionScope);
      const cells: TableCellData[] = [];
      let columns = 0;
      for (const cell of tr.childNodes) {
        if (!isElement(cell) || (cell.tagName !== 'td' && cell.tagName !== 'th')) continue;
        // Cells past the table layer's last column would be dropped there: they are not even built.
        if (columns >= MAX_COLUMNS) break;
        const cellScope = scopeOf(cell, rowScope);
        // HTML clamps colspan to 1..1000; here it is clamped to the columns left.
        const colspan = integerAttribute(cell, 'colspan', 1, MAX_COLUMNS - columns) ?? 1;
        columns += colspan;
        cells.push({ spans: flattenBlocks(this.inner(cell, cellScope)), colspan, align: cellScope.align, direction: cellScope.direction, header: cell.tagName === 'th' });
      }
      if (cells.length > 0) into.push(cells);
    };
    const captions: Block[] = [];
    for (const child of element.childNodes) {
      if (!isElement(child) || child.namespaceURI !== HTML_NAMESPACE) continue;
      const tag = child.tagName;
      if (tag === 'caption') {
        // Captions are centred unless they say otherwise.
        for (const block of this.inner(child, scopeOf(child, { ...scope, align: 'center' }))) captions.push(block);
      } else if (tag === 'tr') {
        row(child, scope, rows);
      } else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') {
        const sectionScope = scopeOf(child, scope);
        for (const tr of child.childNodes) if (isElement(tr) && tr.tagName === 'tr') row(tr, sectionScope, tag === 'thead' ? header : rows);
      }
    }
    sink.addAll(captions);
    if (header.length + rows.length === 0) return;
    const margin = PARAGRAPH_MARGIN * scope.style.size;
    sink.add({ kind: 'table', header, rows, size: scope.style.size, borders: attribute(element, 'border')?.trim() !== '0', direction: scope.direction, before: margin, after: margin });
  }

  image(element: HtmlElement, scope: Scope, sink: Sink): void {
    const src = attribute(element, 'src');
    const bytes = src === undefined ? undefined : imageBytes(src, this.field);
    if (bytes === undefined) return;
    const width = pixelsToPoints(attribute(element, 'width'));
    const height = pixelsToPoints(attribute(element, 'height'));
    sink.add({ kind: 'image', bytes, width, height, align: imageAlign(scope), alt: attribute(element, 'alt'), before: 0, after: 0 });
  }
}

/** An image's side: start and end by the scope's direction (an image has no text of its own, so auto is left to right). */
function imageAlign({ align, direction }: Scope): Align {
  if (align === 'start') return direction === 'rtl' ? 'right' : 'left';
  if (align === 'end') return direction === 'rtl' ? 'left' : 'right';
  return align;
}

/** An integer attribute read as HTML reads one (leading digits, the rest ignored), clamped to min..max. */
function integerAttribute(element: HtmlElement, name: string, min: number, max: number): number | undefined {
  const value = attribute(element, name);
  if (value === undefined) return undefined;
  // Every digit counts: keeping the first nine read "999999999999" as 999999999. Past 1e308 Number gives Infinity, which clamps too.
  const match = /^\s*([+-]?\d+)/.exec(value);
  return match === null ? undefined : Math.min(max, Math.max(min, Number(match[1])));
}

/** An element's text, gathered without recursion (for content nested past MAX_DEPTH). Block boundaries become spaces. */
function textOf(element: HtmlElement): string {
  const parts: string[] = [];
  const stack: HtmlNode[] = [element];
  while (stack.length > 0) {
    const node = stack.pop() as HtmlNode;
    if (isText(node)) {
      parts.push(node.value);
    } else if (isElement(node) && node.namespaceURI === HTML_NAMESPACE && !DROPPED.has(node.tagName)) {
      if (node.tagName === 'br' || !isInline(node.tagName)) parts.push(' ');
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i] as HtmlNode);
    }
  }
  return parts.join('');
}

