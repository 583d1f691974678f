// Appearance streams of list boxes (part of the form seam, pdf-form.ts),
// drawn as viewers draw them (Acrobat, and pdf.js's ChoiceWidgetAnnotation):
// every option one row, from the top index (/TI), rows past the box's
// bottom left out and the last one clipped, the selected rows on a light
// blue band. pdf-lib's own provider drew every option of the list in one
// font, each string laid out left to right as a whole: a mixed option
// ("שלום world") showed, and pdftotext of a flattened form read, "dlrow
// שלום"; an option that needs two fonts (Chinese with Latin) came out in
// the first fallback font, its Chinese as empty boxes; and /TI was ignored.
//
// The rows are laid out by the caller (fill-form hands in the render
// engine's layout through DrawFieldList, which shapes, reorders by the
// bidirectional algorithm and picks fonts run by run, as for text fields);
// this module reads the widget (options, /TI, the selection) and writes
// the frame around the rows with pdf-form-text.ts's frame: background,
// border, the highlighted rows over them, and the rows in /Tx marked
// content clipped to the inside.
import { PDFArray, PDFName, PDFNumber, type PDFDocument, type PDFFont, type PDFOptionList } from '@cantoo/pdf-lib';
import type { DocumentFonts, FontSource } from './pdf.js';
import { fmt, frameOf, placeDrawing, type FieldTextBox, type FieldTextDrawing, type Frame } from './pdf-form-text.js';

/** What a list box widget asks of its rows, in the widget's own upright space (see FieldTextBox). */
export interface FieldListBox extends Omit<FieldTextBox, 'text' | 'multiline' | 'comb' | 'maxLength'> {
  /**
   * The options' text as shown (/Opt's display strings), in /Opt's order:
   * viewers show that order, since the Sort flag is for the tools that
   * write /Opt (ISO 32000-2 section 12.7.5.4, Table 231).
   */
  readonly options: readonly string[];
  /** The first option shown: /TI, or 0 when absent or out of range. */
  readonly topIndex: number;
}

export interface FieldListDrawing extends FieldTextDrawing {
  /** Every row's height: row k from the top index has its top at `inside.top + k * rowHeight`. */
  readonly rowHeight: number;
}

/** Lays out a list box's rows from the top index; undefined when the caller cannot (pdf-lib's provider draws the list then). */
export type DrawFieldList = (box: FieldListBox, fonts: FontSource) => Promise<FieldListDrawing | undefined>;

/**
 * The highlight of a selected row: Acrobat's colour, which pdf.js writes
 * as this literal and pdf-lib as 153/255 193/255 218/255 (the same within
 * 1e-5).
 */
const SELECTED_ROW = '0.600006 0.756866 0.854904 rg';

/**
 * Draws every widget of a list box with `draw`. `selected`: the options'
 * indices that are selected; by default what the field holds (/I, else /V
 * matched against the export values, as pdf.js reads it). Returns the
 * fonts used (for the form's /DR), or undefined when `draw` declined.
 */
export async function drawListBox(doc: PDFDocument, field: PDFOptionList, fonts: DocumentFonts, draw: DrawFieldList, selected: readonly number[] = selection(field)): Promise<PDFFont[] | undefined> {
  const options = field.acroField.getOptions().map((option) => (option.display ?? option.value).decodeText());
  const topIndex = topIndexOf(field, options.length);
  const used: PDFFont[] = [];
  for (const widget of field.acroField.getWidgets()) {
    const frame = frameOf(doc, field, widget);
    const { multiline: _multiline, comb: _comb, maxLength: _maxLength, ...box } = frame.box;
    const drawing = await draw({ ...box, options, topIndex }, fonts);
    if (drawing === undefined) return undefined;
    used.push(...placeDrawing(doc, field, widget, frame, drawing, fonts, highlights(frame, drawing.rowHeight, selected, topIndex)));
  }
  return used;
}

/** The selected rows' bands, from border to border, cut off where the box's inside ends (the rows' clip). */
function highlights(frame: Frame, rowHeight: number, selected: readonly number[], topIndex: number): string {
  const { width, height, inside } = frame.box;
  const { borderWidth } = frame;
  const bottomLimit = inside.top + inside.height;
  const bands: string[] = [];
  for (const index of [...new Set(selected)].sort((a, b) => a - b)) {
    const top = inside.top + (index - topIndex) * rowHeight;
    const bottom = Math.min(top + rowHeight, bottomLimit);
    if (index < topIndex || top >= bottomLimit || bottom <= top) continue;
    // Upright PDF space: y grows upwards from the box's bottom.
    bands.push(`${fmt(borderWidth)} ${fmt(height - bottom)} ${fmt(width - 2 * borderWidth)} ${fmt(bottom - top)} re f`);
  }
  return bands.length === 0 ? '' : ['q', SELECTED_ROW, ...bands, 'Q'].join('\n');
}

/** /TI (ISO 32000-2 Table 231): a whole number within the options; anything else is the top. */
function topIndexOf(field: PDFOptionList, count: number): number {
  const value = field.acroField.dict.lookupMaybe(PDFName.of('TI'), PDFNumber)?.asNumber();
  return value !== undefined && Number.isInteger(value) && value >= 0 && value < count ? value : 0;
}

/** The options the field holds selected: /I's indices when it has any, else the options whose export value /V holds. */
function selection(field: PDFOptionList): number[] {
  const dict = field.acroField.dict;
  const count = field.acroField.getOptions().length;
  const indices = (dict.lookupMaybe(PDFName.of('I'), PDFArray)?.asArray() ?? [])
    .map((entry) => (entry instanceof PDFNumber ? entry.asNumber() : -1))
    .filter((index) => Number.isInteger(index) && index >= 0 && index < count);
  if (indices.length > 0) return indices;
  // /V may sit on a parent (inherited).
  const values = new Set(field.acroField.getValues().map((value) => value.decodeText()));
  return field.acroField.getOptions().flatMap((option, index) => (values.has(option.value.decodeText()) ? [index] : []));
}
