// Inline `style` attributes: the few CSS properties add_html honours, read
// the forgiving way browsers read them (CSS Syntax: a declaration that does
// not parse is skipped, the rest still apply). Nothing here can fetch:
// url(), @import and the like are simply not understood.
import type { Rgb } from '../canvas.js';
import { parseColor } from '../colour.js';
import type { TextAlign } from '../inline.js';

export interface Declarations {
  color?: Rgb;
  /** font-size as a function of the parent's size (em and % are relative). */
  size?: (parent: number) => number;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  align?: TextAlign;
  /** CSS `direction`: the paragraph direction of the element's text. */
  direction?: 'ltr' | 'rtl';
}

/** The range the API allows for font sizes (common.ts `fontSize`). */
const MIN_SIZE = 1;
const MAX_SIZE = 500;

/** HTML 4's sixteen colour keywords plus orange (CSS 2.1): enough for hand-written markup; anything else is hex or rgb(). A Map: `color: constructor` must find nothing. */
const NAMED: ReadonlyMap<string, string> = new Map([
  ['black', '#000000'],
  ['silver', '#c0c0c0'],
  ['gray', '#808080'],
  ['grey', '#808080'],
  ['white', '#ffffff'],
  ['maroon', '#800000'],
  ['red', '#ff0000'],
  ['purple', '#800080'],
  ['fuchsia', '#ff00ff'],
  ['magenta', '#ff00ff'],
  ['green', '#008000'],
  ['lime', '#00ff00'],
  ['olive', '#808000'],
  ['yellow', '#ffff00'],
  ['navy', '#000080'],
  ['blue', '#0000ff'],
  ['teal', '#008080'],
  ['aqua', '#00ffff'],
  ['cyan', '#00ffff'],
  ['orange', '#ffa500'],
]);

export function parseStyle(attribute: string): Declarations {
  const out: Declarations = {};
  for (const declaration of attribute.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon < 0) continue;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration
      .slice(colon + 1)
      .replace(/!\s*important\s*$/i, '')
      .trim()
      .toLowerCase();
    switch (property) {
      case 'color': {
        const rgb = cssColor(value);
        if (rgb !== undefined) out.color = rgb;
        break;
      }
      case 'font-size': {
        const size = fontSize(value);
        if (size !== undefined) out.size = size;
        break;
      }
      case 'font-weight':
        if (value === 'bold' || value === 'bolder') out.bold = true;
        else if (value === 'normal' || value === 'lighter') out.bold = false;
        // Numeric weights: 700 is bold (CSS Fonts 3 section 3.2); 600 renders bold in browsers too, but 700 is the documented line.
        else if (/^\d{3}$/.test(value)) out.bold = Number(value) >= 700;
        break;
      case 'font-style':
        if (value === 'italic' || value.startsWith('oblique')) out.italic = true;
        else if (value === 'normal') out.italic = false;
        break;
      case 'text-decoration':
      case 'text-decoration-line':
        if (value === 'none') {
          out.underline = false;
          out.strike = false;
        } else {
          if (/\bunderline\b/.test(value)) out.underline = true;
          if (/\bline-through\b/.test(value)) out.strike = true;
        }
        break;
      case 'text-align': {
        const align = alignment(value);
        if (align !== undefined) out.align = align;
        break;
      }
      case 'direction': {
        const direction = value.trim().toLowerCase();
        if (direction === 'ltr' || direction === 'rtl') out.direction = direction;
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** text-align values, also used for the legacy align="" attribute. `start` and `end` are the paragraph's own sides, resolved per line (inline.ts lineAlignment). */
export function alignment(value: string): TextAlign | undefined {
  switch (value.trim().toLowerCase()) {
    case 'left':
      return 'left';
    case 'start':
      return 'start';
    case 'center':
    case 'middle':
      return 'center';
    case 'right':
      return 'right';
    case 'end':
      return 'end';
    case 'justify':
      return 'justify';
    default:
      return undefined;
  }
}

export function cssColor(value: string): Rgb | undefined {
  const hex = NAMED.get(value) ?? value;
  if (/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/.test(hex)) return parseColor(hex);
  const rgb = /^rgba?\(\s*(\d{1,3}(?:\.\d+)?)(%?)\s*[,\s]\s*(\d{1,3}(?:\.\d+)?)(%?)\s*[,\s]\s*(\d{1,3}(?:\.\d+)?)(%?)\s*(?:[,/]\s*[\d.]+%?\s*)?\)$/.exec(value);
  if (rgb === null) return undefined;
  // Alpha is dropped: the page is white and text is drawn opaque.
  const channel = (digits: string | undefined, percent: string | undefined) => Math.min(1, Number(digits) / (percent === '%' ? 100 : 255));
  return { r: channel(rgb[1], rgb[2]), g: channel(rgb[3], rgb[4]), b: channel(rgb[5], rgb[6]) };
}

/** px (CSS px are 0.75 pt: 96 px to the inch), pt, em and % of the parent's size. */
function fontSize(value: string): ((parent: number) => number) | undefined {
  const match = /^(\d+(?:\.\d+)?|\.\d+)(px|pt|em|%)$/.exec(value);
  if (match === null) return undefined;
  const amount = Number(match[1]);
  const clamp = (size: number) => Math.min(MAX_SIZE, Math.max(MIN_SIZE, size));
  switch (match[2]) {
    case 'px':
      return () => clamp(amount * 0.75);
    case 'pt':
      return () => clamp(amount);
    case 'em':
      return (parent) => clamp(amount * parent);
    default:
      return (parent) => clamp((amount * parent) / 100);
  }
}
