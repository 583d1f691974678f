// A form of list boxes for fill-form's right-to-left, mixed and
// several-font options (page 1), and one of right-to-left options (page 2),
// built with pdf-lib as authoring tools leave forms
// (a 1 pt border, /DA Helvetica at a fixed size, no /Q, so each option's
// direction decides its side). Test code only: the service reaches pdf-lib
// through its seams in workers/.
import { PDFDocument, PDFHexString, PDFName, PDFNumber, StandardFonts } from '@cantoo/pdf-lib';

/**
 * The options: Hebrew with a Latin word (5 Latin letters to 4 Hebrew ones),
 * Arabic with a number (its right-to-left letters the majority), Chinese
 * with Latin (two fonts: a Noto CJK face and Helvetica) and plain Latin.
 */
export const LIST_OPTIONS = ['שלום world', 'مرحبا 123', '中文 Chinese', 'Plain Latin'] as const;
/** The single-select list's export values, one for each of LIST_OPTIONS (/Opt [[export display] ...]). */
export const EXPORT_VALUES = ['he', 'ar', 'zh', 'en'] as const;
/** Rows a scrolled list shows from its top index (/TI 2): two rows of 12 pt (1.2 line height) and a half. */
export const SCROLL_ROWS = ['Row zero', 'Row one', 'Row two', 'Row three', 'Row four', 'Row five'] as const;
export const SCROLL_TOP_INDEX = 2;

/**
 * Page 2's list box: options whose right-to-left letters outnumber the
 * Latin ones on the page, so that poppler reads the page right to left
 * (it picks one direction a page, counting letters: TextPage::coalesce).
 */
export const RTL_OPTIONS = ['שלום world', 'مرحبا 123', 'עברית ועוד'] as const;
export const RTL_BOX = { x: 50, y: 640, width: 300, height: 80 } as const;

/** Where each list box of page 1 is (PDF space, points). */
export const LIST_BOXES = {
  /** Single select, export values apart from the text shown. */
  greeting: { x: 50, y: 640, width: 300, height: 80 },
  /** Multi-select, the options as their own export values. */
  many: { x: 50, y: 520, width: 300, height: 80 },
  /** /TI 2: starts at "Row two"; rows below the box are not drawn. */
  scrolled: { x: 50, y: 440, width: 200, height: 36 },
  /** Automatic size (/DA 0 Tf): every option in the box. */
  auto: { x: 360, y: 520, width: 200, height: 80 },
} as const;

export type ListBoxName = keyof typeof LIST_BOXES;

export async function listFormPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const form = doc.getForm();
  for (const [name, box] of Object.entries(LIST_BOXES)) {
    const list = form.createOptionList(name);
    // Placed before the options are set: pdf-lib's addToPage draws every option in the font given, and Helvetica has no Hebrew.
    list.addToPage(page, { ...box, font });
    if (name === 'greeting') {
      list.acroField.setOptions(LIST_OPTIONS.map((display, i) => ({ value: PDFHexString.fromText(EXPORT_VALUES[i] as string), display: PDFHexString.fromText(display) })));
    } else {
      list.addOptions(name === 'scrolled' ? [...SCROLL_ROWS] : [...LIST_OPTIONS]);
    }
    if (name === 'many') list.enableMultiselect();
    const da = name === 'auto' ? '/Helv 0 Tf 0 g' : '/Helv 12 Tf 0 g';
    list.acroField.setDefaultAppearance(da);
    for (const widget of list.acroField.getWidgets()) widget.setDefaultAppearance(da);
    if (name === 'scrolled') list.acroField.dict.set(PDFName.of('TI'), PDFNumber.of(SCROLL_TOP_INDEX));
  }
  const second = doc.addPage([612, 792]);
  const rtl = form.createOptionList('rtl');
  rtl.addToPage(second, { ...RTL_BOX, font });
  rtl.addOptions([...RTL_OPTIONS]);
  rtl.acroField.setDefaultAppearance('/Helv 12 Tf 0 g');
  for (const widget of rtl.acroField.getWidgets()) widget.setDefaultAppearance('/Helv 12 Tf 0 g');
  return doc.save({ useObjectStreams: false, updateFieldAppearances: false });
}
