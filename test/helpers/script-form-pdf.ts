// A form for fill-form's right-to-left and mixed-script values, built with
// pdf-lib as authoring tools leave forms: text fields with no /Q (the text's
// direction decides), one with /Q 0 (left, set by its author), one with /Q 1,
// a multi-line field, a comb field, one whose /DA names Times, and a combo
// box with Hebrew options. Test
// code only: the service reaches pdf-lib through its seams in workers/.
import { PDFDocument, PDFName, PDFNumber, StandardFonts } from '@cantoo/pdf-lib';

/** Where each field is (PDF space, points); every field has pdf-lib's 1 pt border and 1 pt padding inside it. */
export const SCRIPT_FIELDS = {
  hebrew: { x: 50, y: 720, width: 300, height: 24 },
  arabic: { x: 50, y: 680, width: 300, height: 24 },
  mixed: { x: 50, y: 640, width: 400, height: 24 },
  left: { x: 50, y: 600, width: 300, height: 24 },
  centred: { x: 50, y: 560, width: 300, height: 24 },
  devanagari: { x: 50, y: 520, width: 400, height: 24 },
  times: { x: 50, y: 480, width: 400, height: 24 },
  notes: { x: 50, y: 340, width: 300, height: 100 },
  code: { x: 50, y: 290, width: 180, height: 24 },
} as const;

/** A combo box (not in SCRIPT_FIELDS: a choice, not a text field) and its options. */
export const CITY_BOX = { x: 300, y: 290, width: 200, height: 24 } as const;
export const CITY_OPTIONS = ['ירושלים', 'תל אביב-יפו', 'Haifa'] as const;

export type ScriptField = keyof typeof SCRIPT_FIELDS;

/** The inset of the text from a field's edge: border (1 pt) plus padding (1 pt). */
export const TEXT_INSET = 2;

export async function scriptFormPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const form = doc.getForm();
  for (const [name, box] of Object.entries(SCRIPT_FIELDS)) {
    const field = form.createTextField(name);
    if (name === 'notes') field.enableMultiline();
    if (name === 'code') {
      field.setMaxLength(6);
      field.enableCombing();
    }
    field.addToPage(page, { ...box, font });
    // A fixed size, as most authored forms have it; Times for one field.
    const da = name === 'times' ? '/TiRo 12 Tf 0 g' : '/Helv 12 Tf 0 g';
    field.acroField.setDefaultAppearance(da);
    for (const widget of field.acroField.getWidgets()) widget.setDefaultAppearance(da);
  }
  const city = form.createDropdown('city');
  city.addOptions([...CITY_OPTIONS]);
  city.addToPage(page, { ...CITY_BOX, font });
  city.acroField.setDefaultAppearance('/Helv 12 Tf 0 g');
  form.getTextField('left').acroField.dict.set(PDFName.of('Q'), PDFNumber.of(0));
  form.getTextField('centred').acroField.dict.set(PDFName.of('Q'), PDFNumber.of(1));
  return doc.save({ useObjectStreams: false, updateFieldAppearances: false });
}
