// A page's text items in page coordinates (types.ts): pdf.js's text content,
// each item's matrix taken through the page's display transform (so /Rotate
// and the crop box are applied), its box from the font's ascent and descent,
// and, when asked, the real font name, fill colour and render mode.
import type { PdfPage } from '../seams/pdfjs.js';
import { displayTransform, multiply, PDF_OPS } from '../seams/pdfjs.js';
import type { TextItem } from './types.js';
import { styleTrack, type StyleTrack } from './text-styles.js';

interface RawItem {
  readonly str: string;
  readonly transform: number[];
  readonly width: number;
  readonly height: number;
  readonly fontName: string;
  readonly hasEOL: boolean;
  readonly dir: string;
}

interface RawStyle {
  readonly fontFamily: string;
  readonly ascent: number;
  readonly descent: number;
  readonly vertical: boolean;
}

interface FontFacts {
  readonly name: string;
  readonly bold: boolean;
  readonly italic: boolean;
}

/** pdf.js's defaults when a font says nothing of its ascent (src/core/fonts.js). */
const FALLBACK_ASCENT = 0.8;
const FALLBACK_DESCENT = -0.2;

/** Operators: the page's operator list when styles are wanted (already awaited: it loads each font into commonObjs, where the real name is). */
export async function readText(page: PdfPage, operators: { fnArray: readonly number[]; argsArray: readonly unknown[] } | null): Promise<TextItem[]> {
  const content = await page.getTextContent();
  const track: StyleTrack | null = operators === null ? null : styleTrack(operators.fnArray, operators.argsArray, PDF_OPS);
  const display = displayTransform(page);
  const fonts = new Map<string, FontFacts>();
  const items: TextItem[] = [];
  for (const entry of content.items) {
    if (!('str' in entry)) continue;
    const raw = entry as RawItem;
    const taken = track?.take(raw.str);
    if (raw.str.length === 0) continue;
    const fontStyle = (content.styles as Record<string, RawStyle | undefined>)[raw.fontName];
    const facts = operators !== null ? fontFacts(page, raw.fontName, fonts) : null;
    items.push(place(raw, display, fontStyle, facts, taken?.style.color ?? '#000000', taken?.style.invisible ?? false, taken?.advances ?? null));
  }
  return items;
}

function place(
  raw: RawItem,
  display: readonly number[],
  fontStyle: RawStyle | undefined,
  facts: FontFacts | null,
  color: string,
  invisible: boolean,
  advances: readonly number[] | null,
): TextItem {
  const m = multiply(display, raw.transform);
  const [a, b, c, d, e, f] = m as [number, number, number, number, number, number];
  const size = Math.hypot(c, d);
  let ascent = fontStyle?.ascent ?? FALLBACK_ASCENT;
  let descent = fontStyle?.descent ?? FALLBACK_DESCENT;
  if (!(ascent > 0 && ascent <= 2)) ascent = FALLBACK_ASCENT;
  if (!(descent <= 0 && descent >= -1)) descent = FALLBACK_DESCENT;
  // The text's "up" in page coordinates is the matrix's second column scaled to one em.
  const upX = size === 0 ? 0 : c / size;
  const upY = size === 0 ? 0 : d / size;
  const top = size * ascent;
  const rotation = normaliseAngle((Math.atan2(b, a) * 180) / Math.PI);
  return {
    text: raw.str,
    x: round(e + upX * top),
    y: round(f + upY * top),
    width: round(raw.dir === 'ttb' ? raw.height : raw.width),
    height: round(size * (ascent - descent)),
    baseline: round(f),
    font: facts?.name ?? fontStyle?.fontFamily ?? 'unknown',
    fontSize: round(size),
    color,
    bold: facts?.bold ?? false,
    italic: facts?.italic ?? false,
    rotation,
    invisible,
    endsLine: raw.hasEOL,
    advances: advances === null ? null : advances.map((em) => em * size),
  };
}

function fontFacts(page: PdfPage, id: string, cache: Map<string, FontFacts>): FontFacts | null {
  const known = cache.get(id);
  if (known !== undefined) return known;
  if (!page.commonObjs.has(id)) return null;
  const font = page.commonObjs.get(id) as { name?: unknown; bold?: unknown; black?: unknown; italic?: unknown } | null;
  if (font === null || typeof font !== 'object') return null;
  const name = typeof font.name === 'string' ? withoutSubsetTag(font.name) : 'unknown';
  const facts = {
    name,
    bold: font.bold === true || font.black === true || /bold|black|heavy|semibold|demi/i.test(name),
    italic: font.italic === true || /italic|oblique/i.test(name),
  };
  cache.set(id, facts);
  return facts;
}

/** A subset font's BaseFont starts with six capitals and "+" (ISO 32000-1, 9.6.4). */
function withoutSubsetTag(name: string): string {
  return /^[A-Z]{6}\+/.test(name) ? name.slice(7) : name;
}

function normaliseAngle(degrees: number): number {
  const rounded = Math.round(degrees * 100) / 100;
  const angle = ((rounded % 360) + 360) % 360;
  return angle === 360 ? 0 : angle;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
