// Client and fallback fonts parsed with fontkit, for the PDF seam (pdf.ts):
// checked, tried out, measured once per worker per content hash, and
// memoized within byte and character budgets. Nothing else imports fontkit.
import { createHash } from 'node:crypto';
import * as fontkit from 'fontkit';
import { BoundedMap } from '../util/bounded-map.js';
import { checkSfnt, FontError, GLYPH_HEADER, type SfntInfo } from '../untrusted/sfnt.js';
import { hasSaraAm, prepareSaraAm } from '../font/sara-am.js';
import { copyGlyphsFromMemo } from './font-subset-glyphs.js';

export { FontError };

/** Texts longer than this are laid out afresh each time: a memoized run costs ~100 bytes per character (measured on DejaVuSans). */
export const MEMO_MAX_TEXT = 256;

/** A checked font with what documents need from it. Shared by every document of the worker. */
export class ParsedFont {
  /** Whether each code point has a glyph, filled in as asked, in pages of 4096 code points: 0 unknown, 1 yes, 2 no. */
  readonly #coverage: Array<Uint8Array | undefined> = [];
  readonly layoutMemo = new LayoutMemo();

  constructor(
    readonly bytes: Uint8Array,
    readonly font: fontkit.Font,
    readonly numGlyphs: number,
    /** Content hash: the cache key. */
    readonly hash: string,
    /** `ABCDEF+PostScriptName`: the subset tag ISO 32000-1 section 9.6.4 asks for, from the content hash. */
    readonly subsetName: string,
  ) {}

  get name(): string {
    return this.font.fullName ?? this.font.postscriptName ?? 'custom';
  }

  /**
   * The glyphs of a text as fontkit lays it out (memoized: see LayoutMemo),
   * and their advance in thousandths of an em: what pdf-lib's
   * widthOfTextAtSize computes, summed in the same order so that line
   * breaks do not move. A pure function of the face and the text, kept on
   * the memoized run itself: every document reuses it, where a letter's
   * words used to be summed again per document (~4% of a letter in
   * registered fonts, profiled for issue 14). Throws what fontkit throws.
   */
  shape(text: string): Shaped {
    const run = this.font.layout(text);
    let shaped = shapes.get(run);
    if (shaped === undefined) {
      const scale = 1000 / this.font.unitsPerEm;
      const glyphs = run.glyphs;
      let advance = 0;
      for (let i = 0; i < glyphs.length; i++) advance += (glyphs[i] as fontkit.Glyph).advanceWidth * scale;
      shaped = { glyphs, advance };
      shapes.set(run, shaped);
    }
    return shaped;
  }

  /**
   * Asked per character of every text, so memoized. Built lazily instead of
   * from fontkit's characterSet, which spreads every cmap range into one
   * array; and a code point counts only when its glyph exists (format 4
   * ranges may map characters to glyph 0, or past the last glyph).
   */
  covers(codePoint: number): boolean {
    const page = this.#coverage[codePoint >>> 12];
    const known = page === undefined ? 0 : (page[codePoint & 0xfff] as number);
    return known === 0 ? this.#lookUp(codePoint) : known === 1;
  }

  #lookUp(codePoint: number): boolean {
    let id = 0;
    try {
      id = this.font.glyphForCodePoint(codePoint).id;
    } catch {
      // A subtable fontkit cannot read for this code point: not covered, so the fallback font draws it.
    }
    const covered = id > 0 && id < this.numGlyphs;
    (this.#coverage[codePoint >>> 12] ??= new Uint8Array(4096))[codePoint & 0xfff] = covered ? 1 : 2;
    return covered;
  }
}

export interface Shaped {
  readonly glyphs: readonly fontkit.Glyph[];
  /** Sum of the glyphs' advance widths, in thousandths of an em (PDF glyph space). */
  readonly advance: number;
}

/** By glyph run: lives as long as the layout memo keeps the run. */
const shapes = new WeakMap<fontkit.GlyphRun, Shaped>();

// --- parsing ---------------------------------------------------------------

/**
 * Parsed fonts by SHA-256 of their bytes, per worker: parsing a large font
 * costs milliseconds. Bounded by the bytes they hold as well as by count
 * (CJK fonts are 15-20 MB; 32 MB are accepted).
 */
const PARSED_FONTS_MAX = 64;
const PARSED_FONTS_MAX_BYTES = 128 * 1024 * 1024;
const parsedFonts = new BoundedMap<string, ParsedFont>(
  PARSED_FONTS_MAX,
  PARSED_FONTS_MAX_BYTES,
  (_hash, parsed) => parsed.bytes.byteLength,
  (_hash, parsed) => forgetLayouts(parsed.layoutMemo),
);

/**
 * Parses by bytes object: pdf-lib calls fontkit.create(bytes) and the shim
 * answers with our parse; callers that keep their bytes object (the render
 * engine memoizes decoded font data) skip hashing too.
 */
const parsedByBytes = new WeakMap<Uint8Array, ParsedFont>();
export const fontkitShim = {
  create(bytes: Uint8Array) {
    return parsedByBytes.get(bytes)?.font ?? fontkit.create(bytes as Buffer);
  },
};

/** The font in `bytes`, checked and tried out; throws FontError for anything unusable. */
export function parseFont(bytes: Uint8Array): ParsedFont {
  const known = parsedByBytes.get(bytes);
  if (known !== undefined) {
    // Still in use: back into the budgeted cache if it was evicted.
    if (!parsedFonts.has(known.hash)) parsedFonts.set(known.hash, known);
    return known;
  }
  const hash = createHash('sha256').update(bytes).digest('hex');
  let parsed = parsedFonts.get(hash);
  if (parsed === undefined) {
    parsed = parse(bytes, hash);
    parsedFonts.set(hash, parsed);
  }
  parsedByBytes.set(bytes, parsed);
  return parsed;
}

function parse(bytes: Uint8Array, hash: string): ParsedFont {
  const info = checkSfnt(bytes);
  const tag = [...hash.slice(0, 6)].map((digit) => String.fromCharCode(65 + (Number.parseInt(digit, 16) % 26))).join('');
  try {
    let data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (info.needsPadding) data = Buffer.concat([data, Buffer.alloc(GLYPH_HEADER)]);
    const font = fontkit.create(data) as fontkit.Font;
    // A client's font may name itself anything; PostScript names are printable ASCII without delimiters.
    const postscript = (font.postscriptName ?? 'Font').replace(/[^A-Za-z0-9-]/g, '').slice(0, 60) || 'Font';
    const parsed = new ParsedFont(bytes, font, info.numGlyphs, hash, `${tag}+${postscript}`);
    const sample = tryOut(parsed, info);
    memoizeLayout(parsed, String.fromCodePoint(sample.codePointAt(0) as number));
    memoizeSubsets(parsed);
    return parsed;
  } catch (error) {
    if (error instanceof FontError) throw error;
    throw new FontError('the font cannot be read: its tables are damaged or in a form not supported; send a TrueType or OpenType font that opens in a font viewer', error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300));
  }
}

/**
 * Does now, once per font, what documents will do with it later: read
 * every property pdf-lib's embedder reads, lay out a few characters the
 * font maps, and encode a subset of their glyphs. fontkit reports a
 * damaged table only when something first reads it, which would otherwise
 * be in the middle of a layout or of saving the PDF. Returns the text it
 * laid out.
 */
function tryOut(parsed: ParsedFont, info: SfntInfo): string {
  const font = parsed.font;
  const bbox = font.bbox;
  const metrics = [font.unitsPerEm, font.ascent, font.descent, font.italicAngle, bbox.minX, bbox.minY, bbox.maxX, bbox.maxY];
  if (!metrics.every(Number.isFinite)) throw new FontError('the font has unreadable metrics');
  // Read for the font descriptor too; OS/2 before version 2 has no capHeight or xHeight, which pdf-lib allows for.
  void [font.fullName, font.capHeight, font.xHeight, (font as unknown as { head: { macStyle: unknown } }).head.macStyle];
  const covered = info.candidates.filter((codePoint) => parsed.covers(codePoint)).slice(0, 8);
  if (covered.length === 0) throw new FontError('the font maps no characters to glyphs');
  const sample = String.fromCodePoint(...covered);
  const run = font.layout(sample);
  const subset = font.createSubset();
  for (const glyph of run.glyphs) {
    if (!Number.isFinite(glyph.advanceWidth)) throw new FontError(`the font has no usable width for glyph ${glyph.id}`);
    subset.includeGlyph(glyph);
  }
  subset.encode();
  return sample;
}

// --- layout memo -----------------------------------------------------------

/**
 * fontkit's layout (cmap, GSUB, GPOS) is a pure function of the text, and
 * pdf-lib runs it for every width and every encoded string: profiled at ~20%
 * of a custom-font page. Parsed fonts are shared across documents, so a memo
 * per font serves repeated words across requests. pdf-lib only reads the
 * glyph runs (ids and advances), so sharing them is safe.
 *
 * The memos of all fonts share one budget, by entries and by characters,
 * and are all emptied when it runs out. A memoized run costs ~100 bytes per
 * character (measured: 50,000 words of DejaVuSans, 61 MB), so texts longer
 * than MEMO_MAX_TEXT are never kept (each distinct 300,000-character word
 * used to stay for the worker's lifetime, ~22 MB apiece) and the whole memo
 * stays under ~100 MB of a worker's heap.
 */
const LAYOUT_MEMO_MAX_ENTRIES = 50_000;
const LAYOUT_MEMO_MAX_CHARS = 1_000_000;

class LayoutMemo {
  readonly runs = new Map<string, fontkit.GlyphRun>();
  chars = 0;
}

const layoutMemos = new Set<LayoutMemo>();
let layoutEntries = 0;
let layoutChars = 0;

function rememberLayout(memo: LayoutMemo, text: string, run: fontkit.GlyphRun): void {
  if (layoutEntries >= LAYOUT_MEMO_MAX_ENTRIES || layoutChars + text.length > LAYOUT_MEMO_MAX_CHARS) {
    for (const each of layoutMemos) {
      each.runs.clear();
      each.chars = 0;
    }
    layoutMemos.clear();
    layoutEntries = 0;
    layoutChars = 0;
  }
  memo.runs.set(text, run);
  memo.chars += text.length;
  layoutMemos.add(memo);
  layoutEntries++;
  layoutChars += text.length;
}

/** Empties an evicted font's memo, so that the budget no longer holds it (or, through its glyph runs, its font). */
function forgetLayouts(memo: LayoutMemo): void {
  if (layoutMemos.delete(memo)) {
    layoutEntries -= memo.runs.size;
    layoutChars -= memo.chars;
  }
  memo.runs.clear();
  memo.chars = 0;
}

/** `short`: a text the font is known to lay out, to release a long one (below). */
function memoizeLayout(parsed: ParsedFont, short: string): void {
  const font = parsed.font;
  const layout = font.layout.bind(font);
  const memo = parsed.layoutMemo;
  const covers = (codePoint: number): boolean => parsed.covers(codePoint);
  // Thai SARA AM as HarfBuzz prepares it (font/sara-am.ts); the memo keeps the text as asked.
  const shape = (text: string, features?: never): fontkit.GlyphRun => layout(hasSaraAm(text) ? prepareSaraAm(text, covers) : text, features);
  font.layout = ((text: string, features?: never) => {
    if (features !== undefined && Object.keys(features as object).length > 0) return shape(text, features);
    if (text.length > MEMO_MAX_TEXT) {
      const long = shape(text);
      // fontkit's layout engine keeps the last text's glyph infos and
      // positions (~420 bytes per character, measured) until its next
      // layout, which for a font not used again is never. An empty text
      // returns before reaching the engine, so one character it is.
      layout(short);
      return long;
    }
    let run = memo.runs.get(text);
    if (run === undefined) {
      run = shape(text);
      rememberLayout(memo, text, run);
    }
    return run;
  }) as typeof font.layout;
}

// --- subset memo -----------------------------------------------------------

/**
 * A subset's bytes are a pure function of the font and the glyph ids in
 * inclusion order, and documents made from one template include the same
 * glyphs: encoding the subset was the largest remaining cost of a
 * custom-font page. Returning the same bytes object also lets pdf.ts's
 * deflate memo hit. One budget for all fonts, by bytes: a subset of a CJK
 * font can be megabytes.
 */
const SUBSETS_MAX = 1024;
const SUBSETS_MAX_BYTES = 64 * 1024 * 1024;
const subsets = new BoundedMap<string, Uint8Array>(SUBSETS_MAX, SUBSETS_MAX_BYTES, (key, bytes) => key.length + bytes.byteLength);

function memoizeSubsets(parsed: ParsedFont): void {
  const font = parsed.font;
  const createSubset = font.createSubset.bind(font);
  font.createSubset = () => {
    const subset = createSubset() as fontkit.Subset & { glyphs: number[] };
    copyGlyphsFromMemo(parsed.hash, font, subset);
    const encode = subset.encode.bind(subset);
    subset.encode = () => {
      const key = `${parsed.hash}:${subset.glyphs.join(',')}`;
      let bytes = subsets.get(key);
      if (bytes === undefined) {
        bytes = encode();
        subsets.set(key, bytes);
      }
      return bytes;
    };
    return subset;
  };
}

