// Appearance streams for filled form fields (part of the form seam,
// pdf-form.ts), drawn by pdf-lib's appearance providers with a font that
// has the glyphs: Helvetica (a standard font, not embedded) when every
// character is in WinAnsiEncoding, else the first fallback font that has
// every character of the field (DejaVu Sans, then the render engine's Noto
// face for the script), embedded as a subset of the glyphs used. A field is
// drawn in one font, as pdf-lib's appearance providers draw it, unless the
// caller's layout (pdf-form-text.ts) takes the value: right-to-left text,
// scripts shaped out of order, and values that need several fonts. List
// boxes are drawn by the caller's layout whenever it is given
// (pdf-form-list.ts): pdf-lib's provider also ignores the top index and
// wraps a long option onto rows of its own.
//
// One correction to pdf-lib: for a multi-line field with automatic font
// size (a /DA size of 0), its size search counts a word wider than the box
// as fitting, so a short first word came out at ~80 pt and the rest was
// clipped (seen with pdftoppm). Such fields get a size chosen here: the
// largest of 12 pt down to 4 pt at which the wrapped text fits the box.
import { PDFCheckBox, PDFDict, PDFDocument, PDFDropdown, PDFName, PDFOptionList, PDFRadioGroup, PDFTextField, StandardFonts, type PDFField, type PDFFont, type PDFWidgetAnnotation } from '@cantoo/pdf-lib';
import { fontkitShim, parseFont } from './fonts-parse.js';
import { DocumentFonts } from './pdf.js';
import { drawListBox, type DrawFieldList } from './pdf-form-list.js';
import { drawTextField, type DrawFieldText } from './pdf-form-text.js';

/** The caller's layout of the values pdf-lib's providers cannot draw (pdf-form-text.ts) and of list boxes (pdf-form-list.ts). */
export interface FieldLayout {
  readonly text: DrawFieldText;
  readonly list: DrawFieldList;
}

/** WinAnsiEncoding's characters beyond Latin-1 (ISO 32000-2 Annex D.2), the 0x80-0x9F block. */
const WIN_ANSI_EXTRA = new Set([...'€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ'].map((c) => c.codePointAt(0) as number));
const LAYOUT = new Set([0x0a, 0x0d, 0x09]);

/** Whether Helvetica (a standard font, WinAnsiEncoding) can draw it; tab and line breaks are layout, not drawn. */
export function inWinAnsi(codePoint: number): boolean {
  return (codePoint >= 0x20 && codePoint <= 0x7e) || (codePoint >= 0xa0 && codePoint <= 0xff) || WIN_ANSI_EXTRA.has(codePoint) || LAYOUT.has(codePoint);
}

/** The characters of `text` no font at all has: neither Helvetica's WinAnsi nor any fallback font. Each once. */
export function undrawableCharacters(text: string, fallbackFonts: readonly Uint8Array[]): string[] {
  const missing = new Set<string>();
  for (const char of text) {
    const codePoint = char.codePointAt(0) as number;
    if (inWinAnsi(codePoint) || fallbackFonts.some((bytes) => parseFont(bytes).covers(codePoint))) continue;
    missing.add(char);
  }
  return [...missing];
}

/**
 * The characters of `text` no one font can draw with the rest: none when
 * Helvetica's WinAnsi or one of the fallback fonts has them all; else those
 * the fallback font that has most of them lacks, each once.
 */
export function missingCharacters(text: string, fallbackFonts: readonly Uint8Array[]): string[] {
  const chars = [...text].filter((char) => !LAYOUT.has(char.codePointAt(0) as number));
  if (chars.every((char) => inWinAnsi(char.codePointAt(0) as number))) return [];
  let fewest: Set<string> | undefined;
  for (const bytes of fallbackFonts) {
    const font = parseFont(bytes);
    const missing = new Set(chars.filter((char) => !font.covers(char.codePointAt(0) as number)));
    if (missing.size === 0) return [];
    if (fewest === undefined || missing.size < fewest.size) fewest = missing;
  }
  return [...(fewest ?? new Set(chars))];
}

export class FormAppearances {
  #helvetica: PDFFont | undefined;
  /** Every font an appearance uses, for the form's /DR. */
  readonly #used = new Set<PDFFont>();
  /** The document's fonts, each embedded once whichever path draws with it. */
  readonly #fonts: DocumentFonts;

  constructor(
    private readonly doc: PDFDocument,
    private readonly fallbackFonts: readonly Uint8Array[],
    private readonly layout?: FieldLayout,
  ) {
    doc.registerFontkit(fontkitShim as never);
    this.#fonts = new DocumentFonts(doc);
  }

  /**
   * Draws the field's widgets as its value now is. `selected`: a list box's
   * selected options by index, when the caller has just chosen them (by
   * default, what the field holds).
   */
  async update(field: PDFField, selected?: readonly number[]): Promise<void> {
    if (this.layout !== undefined) {
      const used =
        field instanceof PDFTextField || field instanceof PDFDropdown
          ? await drawTextField(this.doc, field, this.#fonts, this.layout.text)
          : field instanceof PDFOptionList
            ? await drawListBox(this.doc, field, this.#fonts, this.layout.list, selected)
            : undefined;
      if (used !== undefined) {
        for (const font of used) this.#used.add(font);
        return;
      }
    }
    if (field instanceof PDFTextField) {
      const font = await this.#fontFor([field.getText() ?? '']);
      if (field.isMultiline()) for (const widget of field.acroField.getWidgets()) fixMultilineSize(field, widget, font);
      field.updateAppearances(font);
    } else if (field instanceof PDFDropdown) {
      field.updateAppearances(await this.#fontFor(field.getSelected()));
    } else if (field instanceof PDFOptionList) {
      // A list box shows every option, not only the selected ones.
      field.updateAppearances(await this.#fontFor([...field.getOptions(), ...field.getSelected()]));
    } else if ((field instanceof PDFCheckBox || field instanceof PDFRadioGroup) && field.needsAppearancesUpdate()) {
      // Their states' appearances usually exist already, and /AS picks one.
      field.updateAppearances();
    }
  }

  /** The fonts used, in the form's default resources, so each /DA names a font the form has. */
  registerFonts(acroForm: PDFDict): void {
    const context = this.doc.context;
    let resources = acroForm.lookupMaybe(PDFName.of('DR'), PDFDict);
    if (resources === undefined) {
      resources = context.obj({});
      acroForm.set(PDFName.of('DR'), resources);
    }
    let fonts = resources.lookupMaybe(PDFName.of('Font'), PDFDict);
    if (fonts === undefined) {
      fonts = context.obj({});
      resources.set(PDFName.of('Font'), fonts);
    }
    for (const font of this.#used) fonts.set(PDFName.of(font.name), font.ref);
  }

  async #fontFor(texts: readonly string[]): Promise<PDFFont> {
    const winAnsi = texts.every((text) => [...text].every((char) => inWinAnsi(char.codePointAt(0) as number)));
    if (winAnsi) {
      this.#helvetica ??= this.#fonts.native(this.#fonts.standardFont(StandardFonts.Helvetica).key);
      this.#used.add(this.#helvetica);
      return this.#helvetica;
    }
    // The text values that no one font draws went to drawText; for the rest one of the fonts has every character; the first one if not.
    const chars = texts.flatMap((text) => [...text]).filter((char) => !LAYOUT.has(char.codePointAt(0) as number));
    const bytes = this.fallbackFonts.find((candidate) => chars.every((char) => parseFont(candidate).covers(char.codePointAt(0) as number))) ?? (this.fallbackFonts[0] as Uint8Array);
    const font = (await this.#fonts.embedded(bytes)).native;
    this.#used.add(font);
    return font;
  }
}

const SIZE_TF = /(\/[^\s/<>[\]()]+)\s+([-+\d.]+)\s+Tf/g;

/** For automatic size only: writes the size at which the text fits into the widget's /DA. */
function fixMultilineSize(field: PDFTextField, widget: PDFWidgetAnnotation, font: PDFFont): void {
  const da = widget.getDefaultAppearance() ?? field.acroField.getDefaultAppearance() ?? '';
  const matches = [...da.matchAll(SIZE_TF)];
  const last = matches[matches.length - 1];
  const size = last === undefined ? 0 : Number(last[2]);
  if (Number.isFinite(size) && size > 0) return;
  const rect = widget.getRectangle();
  const inset = ((widget.getBorderStyle()?.getWidth() ?? 0) + 1) * 2;
  const fitted = fittingSize(field.getText() ?? '', font, rect.width - inset, rect.height - inset);
  const rewritten = last === undefined ? `/Helv ${fitted} Tf 0 g ${da}` : `${da.slice(0, last.index)}${last[1]} ${fitted} Tf${da.slice((last.index as number) + last[0].length)}`;
  widget.setDefaultAppearance(rewritten);
}

function fittingSize(text: string, font: PDFFont, width: number, height: number): number {
  for (let size = 12; size > 4; size -= 0.5) {
    const lineHeight = font.heightAtSize(size) * 1.2;
    if (wrappedLines(text, font, size, width) * lineHeight <= height) return size;
  }
  return 4;
}

/** Lines the text takes when wrapped at spaces; a word wider than the box takes as many lines as it spans. */
function wrappedLines(text: string, font: PDFFont, size: number, width: number): number {
  let lines = 0;
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    lines++;
    let used = 0;
    for (const word of paragraph.split(' ')) {
      const w = font.widthOfTextAtSize(`${word} `, size);
      if (w > width) {
        lines += Math.ceil(w / width) - (used === 0 ? 1 : 0);
        used = w % width;
      } else if (used + w > width) {
        lines++;
        used = w;
      } else {
        used += w;
      }
    }
  }
  return lines;
}
