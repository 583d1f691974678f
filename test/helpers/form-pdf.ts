// Test forms for fill-form, built here with pdf-lib so that each carries
// exactly the field kinds and flags the operation must respect: a nested
// text field, a comb field with MaxLen, a multi-line field, a check box
// with its own export value, a radio group, a combo box whose options have
// export values apart from their text, a multi-select list box, a
// read-only field and a push button. Also an XFA-only form. Test code only:
// the service reaches pdf-lib through its seams in workers/.
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts } from '@cantoo/pdf-lib';

/** A value for every fillable field of formPdf (also bench/docops.ts's request). */
export const FILLED_VALUES = {
  'person.name': 'Иван Петров',
  'person.email': 'ivan@example.org',
  zip: '80331',
  notes: 'Line one\nΚαλημέρα, line two which is rather long and should wrap inside the box nicely',
  agree: true,
  size: 'M',
  country: 'Ελλάδα',
  langs: ['de', 'ru'],
  level: 'senior',
};

/** Where each widget is (PDF space), for looking at the rendered page. */
export const NAME_BOX = { x: 50, y: 700, width: 300, height: 24 } as const;

export async function formPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Application form', { x: 50, y: 750, size: 18, font });
  const form = doc.getForm();
  form.createTextField('person.name').addToPage(page, { ...NAME_BOX, font });
  form.createTextField('person.email').addToPage(page, { x: 360, y: 700, width: 200, height: 24, font });
  const zip = form.createTextField('zip');
  zip.setMaxLength(5);
  zip.enableCombing();
  zip.addToPage(page, { x: 50, y: 650, width: 150, height: 24, font });
  const notes = form.createTextField('notes');
  notes.enableMultiline();
  notes.addToPage(page, { x: 50, y: 520, width: 300, height: 100, font });
  const agree = form.createCheckBox('agree');
  agree.addToPage(page, { x: 50, y: 480, width: 16, height: 16 });
  // An export value other than pdf-lib's default "Yes": the "on" appearance state renamed Accepted.
  for (const widget of agree.acroField.getWidgets()) {
    const appearances = widget.dict.lookup(PDFName.of('AP'), PDFDict);
    for (const key of ['N', 'D']) {
      const states = appearances.lookupMaybe(PDFName.of(key), PDFDict);
      const on = states?.get(PDFName.of('Yes'));
      if (states === undefined || on === undefined) continue;
      states.set(PDFName.of('Accepted'), on);
      states.delete(PDFName.of('Yes'));
    }
  }
  const size = form.createRadioGroup('size');
  for (const [i, option] of ['S', 'M', 'L'].entries()) size.addOptionToPage(option, page, { x: 50 + i * 30, y: 440, width: 16, height: 16 });
  const country = form.createDropdown('country');
  country.addToPage(page, { x: 50, y: 400, width: 150, height: 20, font });
  // Export value and text shown differ: /Opt [[(CH) (Switzerland)] ...].
  country.acroField.setOptions([
    { value: PDFHexString.fromText('CH'), display: PDFHexString.fromText('Switzerland') },
    { value: PDFHexString.fromText('DE'), display: PDFHexString.fromText('Germany') },
    { value: PDFHexString.fromText('GR'), display: PDFHexString.fromText('Ελλάδα') },
  ]);
  const langs = form.createOptionList('langs');
  langs.addOptions(['de', 'en', 'fr', 'ru']);
  langs.enableMultiselect();
  langs.addToPage(page, { x: 50, y: 300, width: 100, height: 80, font });
  const single = form.createOptionList('level');
  single.addOptions(['junior', 'senior']);
  single.addToPage(page, { x: 200, y: 300, width: 100, height: 40, font });
  // As forms made by authoring tools have it: automatic font size (0), which
  // pdf-lib's addToPage replaced by a size it computed for the empty field.
  for (const field of [form.getTextField('person.name'), notes]) {
    field.acroField.setDefaultAppearance('/Helv 0 Tf 0 g');
    for (const widget of field.acroField.getWidgets()) widget.setDefaultAppearance('/Helv 0 Tf 0 g');
  }
  const fixed = form.createTextField('reference');
  fixed.setText('REF-1');
  fixed.enableReadOnly();
  fixed.addToPage(page, { x: 360, y: 400, width: 150, height: 20, font });
  form.createButton('submit').addToPage('Submit', page, { x: 360, y: 300, width: 80, height: 24, font });
  // Not regenerated on save: that would write pdf-lib's computed sizes over the automatic ones.
  return doc.save({ useObjectStreams: false, updateFieldAppearances: false });
}

/** A page without any form. */
export async function plainPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage().drawText('No form here', { x: 72, y: 700, size: 18, font: await doc.embedFont(StandardFonts.Helvetica) });
  return doc.save();
}

/** An XFA-only (dynamic) form: an AcroForm with no fields, the form in its XFA stream, NeedsRendering true. */
export async function xfaOnlyPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage();
  const context = doc.context;
  const template = context.register(context.stream('<template xmlns="http://www.xfa.org/schema/xfa-template/3.3/"><subform name="form1"><field name="name"/></subform></template>'));
  doc.catalog.set(PDFName.of('AcroForm'), context.obj({ Fields: [], XFA: [PDFString.of('template'), template] }));
  doc.catalog.set(PDFName.of('NeedsRendering'), context.obj(true));
  return doc.save({ useObjectStreams: false });
}

/**
 * A text field `name` and an unsigned signature field `signature` whose
 * widget has no appearance (/AP), as forms made for signing in a viewer
 * have it; and a text field `blank` drawn by the viewer (/NeedAppearances),
 * also without /AP. pdf-lib's flatten printed a stack trace for each.
 */
export async function unsignedSignatureFormPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Sign below', { x: 50, y: 750, size: 14, font });
  const form = doc.getForm();
  form.createTextField('name').addToPage(page, { x: 50, y: 700, width: 300, height: 24, font });
  const context = doc.context;
  for (const [kind, name, y] of [['Sig', 'signature', 600], ['Tx', 'blank', 500]] as const) {
    const widget = context.register(
      context.obj({ Type: 'Annot', Subtype: 'Widget', FT: kind, T: PDFString.of(name), Rect: [50, y, 250, y + 50], F: 4, P: page.ref, ...(kind === 'Tx' ? { DA: PDFString.of('/Helv 12 Tf 0 g') } : {}) }),
    );
    page.node.addAnnot(widget);
    form.acroForm.addField(widget);
  }
  return doc.save({ useObjectStreams: false, updateFieldAppearances: false });
}
