// The fill colour and render mode each text item was drawn with. pdf.js's
// text content has neither: they are read by walking the page's operator
// list (fill colour operators, which pdf.js has already converted from
// gray/CMYK/other spaces to "#rrggbb", and Tr, each undone by Q), and the
// glyphs each showText draws are lined up with the text items' characters.
//
// Why line up characters rather than positions: pdf.js merges several
// showText operators into one item, and splits one into several at wide
// gaps, so items and operators are not one to one; but both follow the
// content stream's order, so their characters (whitespace left out) form
// the same sequence. Where they differ (a glyph without a Unicode mapping,
// bidi reordering) the walk re-synchronises on the item's first character.

/** Text render mode 3: neither fill nor stroke (ISO 32000-1, 9.3.6). */
const INVISIBLE_MODE = 3;
const RESYNC_WINDOW = 64;

export interface GlyphStyle {
  readonly color: string;
  readonly invisible: boolean;
}

interface Run {
  /** Offset of the run's first character in the sequence of all glyph characters. */
  readonly start: number;
  readonly style: GlyphStyle;
}

export interface StyleTrack {
  /**
   * The style of the next text item (given its text), and the advance of
   * each of its non-whitespace characters in em (null where the glyphs
   * and the text could not be lined up).
   */
  take(text: string): { style: GlyphStyle; advances: number[] | null };
}

const DEFAULT_STYLE: GlyphStyle = { color: '#000000', invisible: false };

export function styleTrack(fnArray: readonly number[], argsArray: readonly unknown[], ops: Readonly<Record<string, number>>): StyleTrack {
  const runs: Run[] = [];
  let characters = '';
  const advances: number[] = [];
  let color = '#000000';
  let mode = 0;
  const saved: { color: string; mode: number }[] = [];
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === ops.save) saved.push({ color, mode });
    else if (fn === ops.restore) ({ color, mode } = saved.pop() ?? { color, mode });
    else if (fn === ops.setFillRGBColor && typeof args?.[0] === 'string') color = args[0];
    else if (fn === ops.setTextRenderingMode && typeof args?.[0] === 'number') mode = args[0];
    else if (fn === ops.showText && Array.isArray(args?.[0])) {
      const start = characters.length;
      characters += glyphText(args[0] as unknown[], advances);
      if (characters.length > start) runs.push({ start, style: styleOf(color, mode) });
    }
  }
  return tracker(runs, characters, advances);
}

/** The glyphs' characters (compacted), pushing each character's advance in em (pdf.js glyph widths are per 1000 em). */
function glyphText(glyphs: readonly unknown[], advances: number[]): string {
  let text = '';
  for (const glyph of glyphs) {
    if (glyph === null || typeof glyph !== 'object') continue;
    const { unicode, width } = glyph as { unicode?: unknown; width?: unknown };
    if (typeof unicode !== 'string') continue;
    const chars = compact(unicode);
    if (chars.length === 0) continue;
    const each = typeof width === 'number' && Number.isFinite(width) ? width / 1000 / chars.length : Number.NaN;
    for (let i = 0; i < chars.length; i++) advances.push(each);
    text += chars;
  }
  return text;
}

const styles = new Map<string, GlyphStyle>();
function styleOf(color: string, mode: number): GlyphStyle {
  const key = `${color}:${mode === INVISIBLE_MODE ? 1 : 0}`;
  let style = styles.get(key);
  if (style === undefined) {
    style = Object.freeze({ color: normaliseHex(color), invisible: mode === INVISIBLE_MODE });
    styles.set(key, style);
  }
  return style;
}

function normaliseHex(color: string): string {
  return /^#[0-9a-f]{6}$/i.test(color) ? color.toLowerCase() : '#000000';
}

/** Whitespace left out and compatibility forms folded (ligatures), as pdf.js normalises text content. */
export function compact(text: string): string {
  return text.normalize('NFKC').replace(/\s+/gu, '');
}

function tracker(runs: readonly Run[], characters: string, advances: readonly number[]): StyleTrack {
  let position = 0;
  let runIndex = 0;
  const styleAt = (offset: number): GlyphStyle => {
    if (runs.length === 0) return DEFAULT_STYLE;
    if (runIndex >= runs.length || (runs[runIndex] as Run).start > offset) runIndex = 0;
    while (runIndex + 1 < runs.length && (runs[runIndex + 1] as Run).start <= offset) runIndex++;
    return (runs[runIndex] as Run).style;
  };
  return {
    take(text: string) {
      const wanted = compact(text);
      if (wanted.length === 0) return { style: styleAt(Math.min(position, Math.max(0, characters.length - 1))), advances: null };
      if (!characters.startsWith(wanted[0] as string, position)) {
        const found = characters.indexOf(wanted, position);
        if (found !== -1 && found - position <= RESYNC_WINDOW * 4) position = found;
        else {
          const first = characters.indexOf(wanted[0] as string, position);
          if (first !== -1 && first - position <= RESYNC_WINDOW) position = first;
        }
      }
      const style = styleAt(Math.min(position, Math.max(0, characters.length - 1)));
      const lined = characters.startsWith(wanted, position) ? advances.slice(position, position + wanted.length) : null;
      position += wanted.length;
      return { style, advances: lined !== null && lined.every(Number.isFinite) ? lined : null };
    },
  };
}
