// Font families and fallback. A style names a family (a standard one, or a
// custom one registered by set_font with font data) plus bold/italic. Text
// the family's font cannot encode falls back, run by run, to the DejaVu face
// of the same class and variant (Sans for Helvetica and custom fonts, Serif
// for Times, Mono for Courier), which ships with the project, and for the
// scripts DejaVu lacks (Hebrew, Indic, Thai, CJK, ...) to the Noto faces of
// script-fonts.ts. A character no font has is an error naming it: never
// tofu, never a silent '?'.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Font, FontSource } from '../seams/pdf.js';
import { registeredFont } from './registered-fonts.js';
import { scriptFaces, type ScriptFace } from './script-fonts.js';

export interface FontChoice {
  readonly family: string;
  readonly bold: boolean;
  readonly italic: boolean;
}

/** A stretch of text drawn with one font. */
export interface Run {
  readonly font: Font;
  readonly text: string;
}

export class MissingGlyphsError extends Error {
  constructor(
    readonly characters: readonly string[],
    readonly fontName: string,
  ) {
    super(`no font can draw ${characters.join('')}`);
    this.name = 'MissingGlyphsError';
  }
}

type Variant = 0 | 1 | 2 | 3; // regular, bold, italic, bold italic
const variantOf = (choice: Pick<FontChoice, 'bold' | 'italic'>): Variant => ((choice.bold ? 1 : 0) + (choice.italic ? 2 : 0)) as Variant;

// Maps, not object literals: a family is client text, and "constructor" or
// "__proto__" looked up in a plain object finds Object.prototype's members.
const STANDARD_FAMILIES: ReadonlyMap<string, readonly [string, string, string, string]> = new Map([
  ['Helvetica', ['Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique']],
  ['Times', ['Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic']],
  ['Courier', ['Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique']],
  ['Symbol', ['Symbol', 'Symbol', 'Symbol', 'Symbol']],
  ['ZapfDingbats', ['ZapfDingbats', 'ZapfDingbats', 'ZapfDingbats', 'ZapfDingbats']],
] as const);
const HELVETICA = STANDARD_FAMILIES.get('Helvetica') as readonly [string, string, string, string];

/** Whether `family` is one of the five standard families (not one of the 14 font names: see standardFamilyOf). */
export function isStandardFamily(family: string): boolean {
  return STANDARD_FAMILIES.has(family);
}

/** The standard family and variant of each of the 14 standard font names, in any case ("times-bold" is Times-Bold). */
export function standardFamilyOf(name: string): FontChoice | undefined {
  const wanted = name.toLowerCase();
  for (const [family, names] of STANDARD_FAMILIES) {
    const index = names.findIndex((standard) => standard.toLowerCase() === wanted);
    if (index >= 0) return { family, bold: (index & 1) === 1, italic: (index & 2) === 2 };
  }
  return undefined;
}

/** The standard family `name` is, in any case ("helvetica" is Helvetica), or undefined. */
export function standardFamilyNamed(name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const family of STANDARD_FAMILIES.keys()) if (family.toLowerCase() === wanted) return family;
  return undefined;
}

export const STANDARD_FAMILY_NAMES = [...STANDARD_FAMILIES.keys()];

const DEJAVU = ['Sans', 'Serif', 'SansMono'] as const;
type DejaVuClass = (typeof DEJAVU)[number];
const DEJAVU_FILES: Record<DejaVuClass, readonly [string, string, string, string]> = {
  Sans: ['DejaVuSans', 'DejaVuSans-Bold', 'DejaVuSans-Oblique', 'DejaVuSans-BoldOblique'],
  Serif: ['DejaVuSerif', 'DejaVuSerif-Bold', 'DejaVuSerif-Italic', 'DejaVuSerif-BoldItalic'],
  SansMono: ['DejaVuSansMono', 'DejaVuSansMono-Bold', 'DejaVuSansMono-Oblique', 'DejaVuSansMono-BoldOblique'],
};
const FALLBACK_CLASS: ReadonlyMap<string, DejaVuClass> = new Map([
  ['Times', 'Serif'],
  ['Courier', 'SansMono'],
]);

const dejavuDir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
/** Font files read once per worker; the same bytes object lets the seam's parse cache hit. */
const dejavuBytes = new Map<string, Uint8Array>();
/** A DejaVu face by file name (DejaVuSans, ...), read once per worker; also the form filler's fallback font. */
export function dejavu(file: string): Uint8Array {
  let bytes = dejavuBytes.get(file);
  if (bytes === undefined) {
    bytes = new Uint8Array(readFileSync(join(dejavuDir, `${file}.ttf`)));
    dejavuBytes.set(file, bytes);
  }
  return bytes;
}

const LAYOUT_CHARACTERS = new Set([0x0a, 0x0d, 0x09]);

/**
 * Unicode's Default_Ignorable_Code_Point characters (zero-width space and
 * joiners, soft hyphen, bidi controls, variation selectors; UAX #44) are
 * invisible by definition. fontkit lays them out as the space glyph, so
 * they were drawn, measured and extracted as spaces ("a\u200Bb" read
 * "a b"; a word of a million zero-width spaces filled 152 pages). runs()
 * drops them. None is below U+00AD, which keeps ASCII off the regex.
 */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const isIgnorable = (codePoint: number, char: string): boolean => codePoint >= 0xad && IGNORABLE.test(char);

/**
 * True when every character of the text is below U+00AD (so none is
 * ignorable or a surrogate) and is the font's own or a layout character:
 * then runs() is the whole text in that font, and a table's thousand short
 * cells skip the per-character walk (its iterator, code points and
 * ignorable test were the largest part of laying out a cell).
 */
function coveredBelowIgnorables(text: string, font: Font): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xad || !(font.covers(code) || code === 0x0a || code === 0x0d || code === 0x09)) return false;
  }
  return true;
}

export class FontBook {
  /** Custom families: variant → font (regular at least). */
  readonly #custom = new Map<string, Map<Variant, Font>>();
  /** DejaVu faces by file name. */
  readonly #fallbacks = new Map<string, Font>();
  /** The script faces loaded for this document, per weight, in the order scriptFaces gives (which decides between Han families). */
  readonly #scriptFonts = new Map<boolean, Array<{ readonly order: number; readonly font: Font }>>();
  /** Characters no face has: looked for once per document, then reported by runs(). */
  readonly #unavailable = new Set<number>();
  readonly #scriptFaces: readonly ScriptFace[];
  /** primary()'s last question and answer (FontChoice objects are styles, never changed once made). */
  #lastChoice: FontChoice | undefined;
  #lastPrimary: Font | undefined;

  constructor(
    private readonly doc: FontSource,
    /** The client's registered fonts: family → file (RenderOptions.fonts). */
    private readonly registered?: Readonly<Record<string, string>>,
    /**
     * PDF/A output (output.pdf_a): every font must be embedded, and the
     * standard 14 are not, so a standard family is drawn with the DejaVu
     * face of its class and variant (the faces its fallback uses: Sans for
     * Helvetica, Symbol and ZapfDingbats, Serif for Times, Sans Mono for
     * Courier), loaded by prepare() like a fallback. DejaVu is not
     * metric-compatible with the standard 14: lines break differently.
     */
    private readonly archival = false,
    /** The document's language (BCP 47): it picks the Han face (Chinese, Japanese or Korean forms). */
    language?: string,
  ) {
    this.#scriptFaces = scriptFaces(language);
  }

  /**
   * Loads a family the client registered (PUT /api/v1/fonts/{family}) as
   * its regular face, so bold and italic use it too, as for a family sent
   * with one face. False when the client has no such family.
   */
  async loadRegistered(family: string): Promise<boolean> {
    const bytes = await registeredFont(this.registered, family);
    if (bytes === undefined) return false;
    await this.register({ family, bold: false, italic: false }, bytes);
    return true;
  }

  /** Registers a custom font as a variant of `family`. Rejects with FontError for unreadable data. */
  async register(choice: FontChoice, bytes: Uint8Array): Promise<void> {
    const font = await this.doc.customFont(bytes);
    let variants = this.#custom.get(choice.family);
    if (variants === undefined) this.#custom.set(choice.family, (variants = new Map()));
    variants.set(variantOf(choice), font);
    this.#lastChoice = undefined;
  }

  isKnown(family: string): boolean {
    return STANDARD_FAMILIES.has(family) || this.#custom.has(family);
  }

  /** The family's own font for a choice; a custom family without the variant uses its regular face. */
  primary(choice: FontChoice): Font {
    // Layout asks per word and per line with the same style object: the last answer, until a face is added.
    if (choice === this.#lastChoice) return this.#lastPrimary as Font;
    const font = this.#primary(choice);
    this.#lastChoice = choice;
    this.#lastPrimary = font;
    return font;
  }

  #primary(choice: FontChoice): Font {
    const custom = this.#custom.get(choice.family);
    if (custom !== undefined) {
      return custom.get(variantOf(choice)) ?? custom.get(0) ?? (custom.values().next().value as Font);
    }
    if (this.archival) {
      const face = this.#fallbacks.get(this.#fallbackFile(choice));
      // Every layout path prepares its spans first (inline.ts prepareSpans), which loads this face.
      if (face === undefined) throw new Error(`the archival face for ${choice.family} was used before prepare() loaded it`);
      return face;
    }
    const names = STANDARD_FAMILIES.get(choice.family) ?? HELVETICA;
    return this.doc.standardFont(names[variantOf(choice)]);
  }

  /**
   * The fallback faces a text needs and has not loaded yet, as a promise to
   * await; undefined (no promise, no allocation) in the common case where
   * the fonts loaded so far cover the text. Fonts load asynchronously;
   * layout is synchronous.
   */
  prepare(text: string, choice: FontChoice): Promise<void> | undefined {
    if (this.archival && !this.#custom.has(choice.family) && !this.#fallbacks.has(this.#fallbackFile(choice))) {
      return this.#loadFallback(choice).then(() => this.prepare(text, choice));
    }
    // The family's own font first and alone: for most text it covers everything, and this runs per character.
    const primary = this.primary(choice);
    let fallbacks: readonly Font[] | undefined;
    let needed: number[] | undefined;
    for (let i = 0; i < text.length; i++) {
      const codePoint = text.codePointAt(i) as number;
      if (codePoint > 0xffff) i++;
      if (primary.covers(codePoint) || LAYOUT_CHARACTERS.has(codePoint) || this.#unavailable.has(codePoint)) continue;
      fallbacks ??= this.#chain(choice);
      if (fallbacks.some((font) => font.covers(codePoint)) || isIgnorable(codePoint, String.fromCodePoint(codePoint))) continue;
      (needed ??= []).push(codePoint);
    }
    return needed === undefined ? undefined : this.#loadFallbacks(needed, choice);
  }

  /**
   * Splits text into runs by the font that draws each character: the
   * family's font where it can, else the first fallback that can. Ignorable
   * characters are left out, so a text of nothing else has no runs.
   * prepare() must have run for this text and choice. Throws MissingGlyphsError.
   */
  runs(text: string, choice: FontChoice): Run[] {
    const primary = this.primary(choice);
    if (coveredBelowIgnorables(text, primary)) return text.length === 0 ? [] : [{ font: primary, text }];
    let chain: readonly Font[] | undefined;
    const runs: Run[] = [];
    let current: Font | undefined;
    let start = 0;
    let missing: Set<string> | undefined;
    let index = 0;
    for (const char of text) {
      const codePoint = char.codePointAt(0) as number;
      if (isIgnorable(codePoint, char)) {
        // The run so far ends before it and the next one starts after it.
        if (current !== undefined && index > start) runs.push({ font: current, text: text.slice(start, index) });
        index += char.length;
        start = index;
        continue;
      }
      let font: Font | undefined = primary;
      if (!LAYOUT_CHARACTERS.has(codePoint) && !primary.covers(codePoint)) {
        chain ??= this.#chain(choice);
        font = chain.find((candidate) => candidate.covers(codePoint));
        if (font === undefined) (missing ??= new Set()).add(char);
      }
      if (font !== undefined && font !== current) {
        if (current !== undefined && index > start) runs.push({ font: current, text: text.slice(start, index) });
        current = font;
        start = index;
      }
      index += char.length;
    }
    if (missing !== undefined) throw new MissingGlyphsError([...missing], primary.name);
    if (current !== undefined && index > start) runs.push({ font: current, text: text.slice(start, index) });
    return runs;
  }

  /** The family's font, its DejaVu fallback when loaded, then the script faces loaded for this weight. */
  #chain(choice: FontChoice): Font[] {
    const chain = [this.primary(choice)];
    const dejavuFont = this.#fallbacks.get(this.#fallbackFile(choice));
    if (dejavuFont !== undefined && dejavuFont !== chain[0]) chain.push(dejavuFont);
    for (const { font } of this.#scriptFonts.get(choice.bold) ?? []) chain.push(font);
    return chain;
  }

  #fallbackFile(choice: FontChoice): string {
    const fontClass = FALLBACK_CLASS.get(choice.family) ?? 'Sans';
    return DEJAVU_FILES[fontClass][variantOf(choice)];
  }

  async #loadFallback(choice: FontChoice): Promise<Font> {
    const file = this.#fallbackFile(choice);
    let face = this.#fallbacks.get(file);
    if (face === undefined) {
      this.#fallbacks.set(file, (face = await this.doc.customFont(dejavu(file))));
      this.#lastChoice = undefined;
    }
    return face;
  }

  /** DejaVu first (it matches the standard families' style); for what it lacks, the script faces in order until one has it. */
  async #loadFallbacks(codePoints: readonly number[], choice: FontChoice): Promise<void> {
    const dejavuFont = await this.#loadFallback(choice);
    const loaded = this.#scriptFonts.get(choice.bold) ?? [];
    this.#scriptFonts.set(choice.bold, loaded);
    for (const codePoint of codePoints) {
      if (dejavuFont.covers(codePoint) || loaded.some(({ font }) => font.covers(codePoint))) continue;
      let found = false;
      for (const [order, face] of this.#scriptFaces.entries()) {
        if (!face.mayCover(codePoint) || loaded.some((entry) => entry.order === order)) continue;
        const font = await this.doc.customFont(await face.load(choice.bold));
        loaded.push({ order, font });
        loaded.sort((a, b) => a.order - b.order);
        if (font.covers(codePoint)) {
          found = true;
          break;
        }
      }
      if (!found) this.#unavailable.add(codePoint);
    }
  }
}
