// A form flattened into its pages with pdf-lib's PDFForm.flatten, made safe
// for a server. @cantoo/pdf-lib 2.11.1 catches each widget it cannot draw
// and console.error's it (PDFForm.flatten, removeField,
// flattenOrphanWidgets): a multi-line stack trace on the server's output,
// between pino's JSON lines (README, Logs). A widget with no normal
// appearance (/AP /N) is the common case: every unsigned signature field,
// and fields a viewer was left to draw (/NeedAppearances).
//
// Such a widget shows nothing, so flattening it draws nothing: it is given
// an empty appearance first, and pdf-lib never fails on it. Whatever pdf-lib
// still prints during the (synchronous) call, such as a widget that is on
// no page, is taken from console.error for that call only, so it cannot
// reach the log; the field is removed either way, as pdf-lib does.
import { PDFCheckBox, PDFDict, PDFName, PDFRadioGroup, PDFRef, type PDFDocument, type PDFField, type PDFWidgetAnnotation } from '@cantoo/pdf-lib';

/** Flattens the document's form into its pages; the form's fields are gone afterwards. */
export function flattenForm(doc: PDFDocument): void {
  const form = doc.getForm();
  for (const field of form.getFields()) {
    for (const widget of field.acroField.getWidgets()) {
      if (normalAppearance(doc, field, widget) === undefined) giveEmptyAppearance(doc, widget);
    }
  }
  withConsoleErrorHeld(() => form.flatten({ updateFieldAppearances: false }));
}

/**
 * The appearance stream pdf-lib would draw for this widget
 * (PDFForm.findWidgetAppearanceRef): /AP /N, for a check box or radio button
 * its state named by the field's value (else /Off). Undefined where pdf-lib
 * would throw.
 */
function normalAppearance(doc: PDFDocument, field: PDFField, widget: PDFWidgetAnnotation): PDFRef | undefined {
  const normal = widget.AP()?.get(PDFName.of('N'));
  if (field instanceof PDFCheckBox || field instanceof PDFRadioGroup) {
    const states = normal instanceof PDFRef ? doc.context.lookup(normal) : normal;
    if (states instanceof PDFDict) {
      const value = field.acroField.getValue();
      const state = states.get(value) ?? states.get(PDFName.of('Off'));
      return state instanceof PDFRef ? state : undefined;
    }
  }
  return normal instanceof PDFRef ? normal : undefined;
}

/** An empty form XObject the widget's size as its /AP /N: the widget keeps showing nothing, and flattening draws nothing. */
function giveEmptyAppearance(doc: PDFDocument, widget: PDFWidgetAnnotation): void {
  const { width, height } = widget.getRectangle();
  const stream = doc.context.formXObject([], { BBox: [0, 0, Math.abs(width), Math.abs(height)] });
  widget.setNormalAppearance(doc.context.register(stream));
}

/**
 * Runs `work` with console.error printing nothing. `work` is synchronous, so
 * no other code of this thread runs while it is replaced. Workers do not log
 * (STYLE.md); the result shows what was flattened.
 */
function withConsoleErrorHeld(work: () => void): void {
  const original = console.error;
  console.error = () => undefined;
  try {
    work();
  } finally {
    console.error = original;
  }
}
