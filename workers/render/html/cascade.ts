// What an element does to the style its content inherits: the defaults of
// HTML's user-agent style sheet for the tags add_html knows (bold, italic,
// underline, strike, monospace, heading sizes, link colour), then the
// legacy align attribute and the inline style attribute, which win. The
// `dir` attribute (and CSS `direction`) set the paragraph direction that
// text inherits; without one anywhere, each paragraph takes its first
// strong character's (the render engine's rule for add_text), so a Hebrew
// paragraph is right-aligned by default (text-align's initial `start`).
import * as v from 'valibot';
import type { Rgb } from '../canvas.js';
import { link } from '../fields.js';
import type { Direction } from '../bidi.js';
import type { TextAlign, TextStyle } from '../inline.js';
import { attribute, type HtmlElement } from './parse.js';
import { alignment, parseStyle } from './style.js';
import { HEADINGS, MONOSPACE_TAGS, PRE_TAGS } from './tags.js';

/** A conventional link blue (the blue of the HTML standard's default link colour is harsher in print). */
const LINK_COLOR: Rgb = Object.freeze({ r: 0.02, g: 0.27, b: 0.68 });

/** Inherited state, as CSS inherits it. */
export interface Scope {
  readonly style: TextStyle;
  readonly align: TextAlign;
  /** The paragraph direction: from dir / CSS direction, inherited; auto when none is set. */
  readonly direction: Direction;
  readonly pre: boolean;
  /** Lists around this element: picks the bullet. */
  readonly lists: number;
  readonly depth: number;
}

/** The element's scope: the parent's, changed by the tag's defaults and its style attribute (which wins). */
export function scopeOf(element: HtmlElement, parent: Scope): Scope {
  const tag = element.tagName;
  const base = parent.style;
  const style: { -readonly [K in keyof TextStyle]: TextStyle[K] } = { ...base };
  let align = parent.align;
  let direction = parent.direction;
  let pre = parent.pre;
  if (tag === 'strong' || tag === 'b' || tag === 'th') style.bold = true;
  else if (tag === 'em' || tag === 'i') style.italic = true;
  else if (tag === 'u' || tag === 'ins') style.underline = true;
  else if (tag === 's' || tag === 'strike' || tag === 'del') style.strike = true;
  else if (tag === 'a') {
    const href = attribute(element, 'href');
    // The same rule as add_text's `link`: http, https and mailto only; anything else is plain text.
    const target = href === undefined ? undefined : v.safeParse(link, href.trim());
    if (target?.success === true) {
      style.link = target.output;
      style.color = LINK_COLOR;
      style.underline = true;
    }
  }
  const heading = HEADINGS.get(tag);
  if (heading !== undefined) {
    style.size = base.size * heading;
    style.bold = true;
  }
  if (MONOSPACE_TAGS.has(tag)) style.family = 'Courier';
  if (PRE_TAGS.has(tag)) pre = true;
  if (tag === 'th') align = 'center';
  const legacy = attribute(element, 'align');
  if (legacy !== undefined) align = alignment(legacy) ?? align;
  direction = directionOf(attribute(element, 'dir')) ?? direction;

  const css = attribute(element, 'style');
  if (css !== undefined) {
    const declared = parseStyle(css);
    if (declared.color !== undefined) style.color = declared.color;
    // em and % are relative to the parent's size, as in CSS (a heading's own factor is replaced).
    if (declared.size !== undefined) style.size = declared.size(base.size);
    if (declared.bold !== undefined) style.bold = declared.bold;
    if (declared.italic !== undefined) style.italic = declared.italic;
    if (declared.underline !== undefined) style.underline = declared.underline;
    if (declared.strike !== undefined) style.strike = declared.strike;
    if (declared.align !== undefined) align = declared.align;
    if (declared.direction !== undefined) direction = declared.direction;
  }
  return { style: sameStyle(style, base) ? base : style, align, direction, pre, lists: parent.lists, depth: parent.depth + 1 };
}

/** The dir attribute's states (HTML: ltr, rtl, auto; anything else is no state, and the parent's applies). */
export function directionOf(value: string | undefined): Direction | undefined {
  const state = value?.trim().toLowerCase();
  return state === 'ltr' || state === 'rtl' || state === 'auto' ? state : undefined;
}

/**
 * Whether an element changed nothing: it then shares its parent's style
 * object, so its text joins the parent's span and the table layer's
 * measurement cache (keyed by style object) keeps hitting.
 */
function sameStyle(a: TextStyle, b: TextStyle): boolean {
  return (
    a.family === b.family &&
    a.bold === b.bold &&
    a.italic === b.italic &&
    a.size === b.size &&
    a.color === b.color &&
    a.underline === b.underline &&
    a.strike === b.strike &&
    a.link === b.link &&
    a.lineHeight === b.lineHeight
  );
}
