// A PDF's interactive form (AcroForm), read and filled behind this seam with
// pdf-lib's form API: the fields described in neutral types for the
// fill-form task to validate against, values written, appearance streams
// generated (pdf-form-appearance.ts) so that every viewer shows the values
// without regenerating them, and the form optionally flattened into the
// page content.
//
// A signed document is written as an incremental update (ISO 32000-2
// section 7.5.6): the signed bytes stay as they are, so each signature
// still verifies over the revision it signed, as when a person fills a
// signed form in a viewer. Any other document is written afresh.
import { PDFAcroCheckBox, PDFAcroSignature, PDFArray, PDFBool, PDFString, PDFButton, PDFCheckBox, PDFDict, PDFDocument, PDFDropdown, PDFHexString, PDFName, PDFNumber, PDFOptionList, PDFRadioGroup, PDFSignature, PDFTextField, type PDFField } from '@cantoo/pdf-lib';
import { FormAppearances, type FieldLayout } from './pdf-form-appearance.js';
import { flattenForm } from './pdf-form-flatten.js';
import { OpenFailure, openSource } from './pdf-structure.js';

export { OpenFailure };
export type { FieldLayout } from './pdf-form-appearance.js';
export type { DrawFieldList, FieldListBox, FieldListDrawing } from './pdf-form-list.js';
export type { DrawFieldText, FieldTextBox, FieldTextDrawing } from './pdf-form-text.js';

export type FormFieldKind = 'text' | 'checkbox' | 'radio' | 'combo' | 'list' | 'button' | 'signature';

/** A choice field's option: the export value (what `/V` holds) and the text shown. */
export interface FormOption {
  readonly value: string;
  readonly display: string;
}

export interface FormFieldInfo {
  /** Fully qualified: partial names joined by '.'. */
  readonly name: string;
  readonly kind: FormFieldKind;
  readonly readOnly: boolean;
  /** Text fields: /MaxLen (characters), Multiline, Comb. */
  readonly maxLength: number | undefined;
  readonly multiline: boolean;
  readonly comb: boolean;
  /** Check boxes: their "on" state; radio groups: export value and "on" state name; choice fields: export value and text shown. */
  readonly options: readonly FormOption[];
  /** Combo boxes with the Edit flag take any text. */
  readonly editable: boolean;
  /** List boxes with the MultiSelect flag take several options. */
  readonly multiSelect: boolean;
}

/** A value the task has checked against its field. */
export type FormValue =
  | { readonly kind: 'text'; readonly text: string }
  /** The "on" state to set, or null for Off. */
  | { readonly kind: 'checkbox'; readonly on: string | null }
  | { readonly kind: 'radio'; readonly option: string }
  | { readonly kind: 'choice'; readonly options: readonly FormOption[] };

export interface FormDocument {
  readonly fields: ReadonlyMap<string, FormFieldInfo>;
  /** Names of non-terminal fields (`person` of `person.name`): not fillable themselves. */
  readonly groups: ReadonlySet<string>;
  /** `only`: an XFA form whose AcroForm has no fields (nothing fillable here); `hybrid`: both. */
  readonly xfa: 'none' | 'hybrid' | 'only';
  /** Signature fields with a signature value. */
  readonly signed: boolean;
  /** Fields a signature's /Lock (FieldMDP) locks, by name: the signature field's name. */
  readonly locks: ReadonlyMap<string, string>;
  /** A certification signature's DocMDP says P 1: no change allowed, form filling included. */
  readonly certifiedNoChanges: boolean;
  readonly encrypted: boolean;
  /**
   * Writes the values with their appearances (fonts: Helvetica where the
   * text is WinAnsi, else the fallback font, embedded as a subset); fields
   * without an appearance get one too; NeedAppearances becomes false.
   * `layout` lays out the text values pdf-lib cannot draw (right-to-left,
   * several fonts: pdf-form-text.ts) and the rows of list boxes
   * (pdf-form-list.ts).
   */
  fill(values: ReadonlyMap<string, FormValue>, layout?: FieldLayout): Promise<void>;
  /** The whole file: the original plus an incremental update when signed, else a fresh file. */
  save(options: { readonly flatten: boolean }): Promise<Uint8Array>;
}

export async function openForm(bytes: Uint8Array, password: string | undefined, fallbackFonts: readonly Uint8Array[]): Promise<FormDocument> {
  const form = await open(bytes, password, fallbackFonts, false);
  // Only a signed document is opened again, ready for an incremental update:
  // pdf-lib then tracks every change by scanning the objects for the one that
  // holds it, which was a third of a fill's time (CPU profile, bench/docops.ts's form).
  return form.signed ? open(bytes, password, fallbackFonts, true) : form;
}

async function open(bytes: Uint8Array, password: string | undefined, fallbackFonts: readonly Uint8Array[], forIncrementalUpdate: boolean): Promise<FormDocument> {
  const doc = await openSource(bytes, password, { forIncrementalUpdate, preserveXFA: true });
  try {
    return new PdfLibForm(doc, fallbackFonts);
  } catch (error) {
    if (error instanceof OpenFailure) throw error;
    throw new OpenFailure('unreadable', 'has an interactive form that cannot be read: a field dictionary is damaged.', (error as Error).message.slice(0, 300));
  }
}

class PdfLibForm implements FormDocument {
  readonly fields = new Map<string, FormFieldInfo>();
  readonly groups = new Set<string>();
  readonly xfa: FormDocument['xfa'];
  readonly signed: boolean;
  readonly locks: ReadonlyMap<string, string>;
  readonly certifiedNoChanges: boolean;
  readonly encrypted: boolean;
  readonly #byName = new Map<string, PDFField>();

  constructor(
    private readonly doc: PDFDocument,
    private readonly fallbackFonts: readonly Uint8Array[],
  ) {
    const acroForm = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
    const form = acroForm === undefined ? undefined : doc.getForm();
    for (const field of form?.getFields() ?? []) {
      const name = field.getName();
      this.#byName.set(name, field);
      this.fields.set(name, describe(field));
      const parts = name.split('.');
      for (let i = 1; i < parts.length; i++) this.groups.add(parts.slice(0, i).join('.'));
    }
    const hasXfa = form?.hasXFA() === true;
    this.xfa = !hasXfa ? 'none' : this.fields.size === 0 || doc.catalog.get(PDFName.of('NeedsRendering')) === PDFBool.True ? 'only' : 'hybrid';
    const signatures = (form?.getFields() ?? []).filter((field) => field instanceof PDFSignature && field.acroField.dict.get(PDFName.of('V')) !== undefined);
    this.signed = signatures.length > 0;
    this.locks = lockedFields(signatures, [...this.fields.keys()]);
    this.certifiedNoChanges = forbidsChanges(doc);
    this.encrypted = doc.isEncrypted;
  }

  async fill(values: ReadonlyMap<string, FormValue>, layout?: FieldLayout): Promise<void> {
    const form = this.doc.getForm();
    // A hybrid form's XFA would make XFA viewers (Acrobat) show its own,
    // unchanged data instead of the values written here.
    if (this.xfa === 'hybrid') form.deleteXFA();
    const appearances = new FormAppearances(this.doc, this.fallbackFonts, layout);
    for (const [name, value] of values) {
      const field = this.#byName.get(name);
      if (field === undefined) throw new Error(`pdf-form: no field ${name}`);
      setValue(field, value);
      // /V holds the options' text now (setValue) and /I the input's, until writeExportValues: a list box is told its selection.
      await appearances.update(field, value.kind === 'choice' ? optionIndices(field, value.options) : undefined);
      if (value.kind === 'choice') writeExportValues(field, value.options);
    }
    for (const field of form.getFields()) {
      if (!values.has(field.getName()) && !(field instanceof PDFSignature) && field.needsAppearancesUpdate()) await appearances.update(field);
    }
    appearances.registerFonts(form.acroForm.dict);
    form.acroForm.dict.set(PDFName.of('NeedAppearances'), PDFBool.False);
  }

  async save(options: { readonly flatten: boolean }): Promise<Uint8Array> {
    if (options.flatten && this.doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict) !== undefined) {
      flattenForm(this.doc);
      // No field left: no form (pdfinfo then says "Form: none").
      this.doc.catalog.delete(PDFName.of('AcroForm'));
    }
    const settings = { objectsPerTick: Number.POSITIVE_INFINITY, updateFieldAppearances: false };
    if (this.signed) {
      const original = this.doc.context.pdfFileDetails.originalBytes?.length ?? 0;
      return withTrailerSize(await this.doc.commit({ ...settings, useObjectStreams: false }), original, this.doc.context.largestObjectNumber + 1);
    }
    // Object streams are pdf-lib's choice when rewriting: on, except in a file
    // whose XMP claims PDF/A-1, which forbids them (ISO 19005-1 6.1.4), where
    // pdf-lib throws if asked for them: 36 of 126 veraPDF corpus files were a
    // 500 for an empty fill-form.
    return this.doc.save({ ...settings, rewrite: true });
  }
}

/**
 * The update's trailer /Size set to one past the highest object number
 * (ISO 32000-2 section 7.5.5). @cantoo/pdf-lib 2.11.1 writes the highest
 * number itself when the update adds no object (a check box turned on
 * adds none): it counts the unchanged last object as a skipped xref
 * stream, and qpdf --check warns. The trailer follows the xref section, so
 * its length may change without moving any offset.
 */
function withTrailerSize(bytes: Uint8Array, updateStart: number, size: number): Uint8Array {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', updateStart);
  const trailer = text.lastIndexOf('trailer');
  const match = trailer < 0 ? null : /\/Size (\d+)/.exec(text.slice(trailer));
  if (match === null || Number(match[1]) >= size) return bytes;
  const at = updateStart + trailer + match.index;
  const fixed = Buffer.from(`/Size ${size}`, 'latin1');
  const out = new Uint8Array(bytes.length - match[0].length + fixed.length);
  out.set(bytes.subarray(0, at));
  out.set(fixed, at);
  out.set(bytes.subarray(at + match[0].length), at + fixed.length);
  return out;
}

function describe(field: PDFField): FormFieldInfo {
  const base = { name: field.getName(), readOnly: field.isReadOnly(), maxLength: undefined, multiline: false, comb: false, options: [], editable: false, multiSelect: false };
  if (field instanceof PDFTextField) {
    return { ...base, kind: 'text', maxLength: field.getMaxLength(), multiline: field.isMultiline(), comb: field.isCombed() };
  }
  if (field instanceof PDFCheckBox) {
    // pdf-lib turns a check box on with its first widget's "on" state (Yes when it has none yet).
    const on = (field.acroField as PDFAcroCheckBox).getOnValue()?.decodeText() ?? 'Yes';
    return { ...base, kind: 'checkbox', options: [{ value: on, display: on }] };
  }
  if (field instanceof PDFRadioGroup) {
    // With /Opt, a button's export value is its /Opt entry and /V names its
    // "on" state ("0", "1", ...: what pdf.js, and so parse, reports); either names the option.
    const states = field.acroField.getOnValues().map((state) => state.decodeText());
    return { ...base, kind: 'radio', options: field.getOptions().map((value, i) => ({ value, display: states[i] ?? value })) };
  }
  if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
    const options = field.acroField.getOptions().map((option) => ({ value: option.value.decodeText(), display: (option.display ?? option.value).decodeText() }));
    if (field instanceof PDFDropdown) return { ...base, kind: 'combo', options, editable: field.isEditable() };
    return { ...base, kind: 'list', options, multiSelect: field.isMultiselect() };
  }
  if (field instanceof PDFButton) return { ...base, kind: 'button' };
  if (field instanceof PDFSignature || field.acroField instanceof PDFAcroSignature) return { ...base, kind: 'signature' };
  return { ...base, kind: 'button' };
}

function setValue(field: PDFField, value: FormValue): void {
  if (value.kind === 'text' && field instanceof PDFTextField) {
    // setText's own MaxLen check counts UTF-16 units; the task has counted characters.
    if (value.text === '') field.acroField.removeValue();
    else field.acroField.setValue(PDFHexString.fromText(value.text));
    field.doc.getForm().markFieldAsDirty(field.ref);
  } else if (value.kind === 'checkbox' && field instanceof PDFCheckBox) {
    if (value.on === null) field.uncheck();
    else field.check();
  } else if (value.kind === 'radio' && field instanceof PDFRadioGroup) {
    field.select(value.option);
  } else if (value.kind === 'choice' && (field instanceof PDFDropdown || field instanceof PDFOptionList)) {
    // pdf-lib selects by the text shown and draws what /V holds; the
    // appearance is drawn from the shown text (pdf-form-appearance.ts) and
    // /V then holds the export values, as ISO 32000-2 section 12.7.5.4 says.
    field.acroField.setValues(value.options.map((option) => PDFHexString.fromText(option.display)));
    field.doc.getForm().markFieldAsDirty(field.ref);
  } else {
    throw new Error(`pdf-form: a ${value.kind} value for ${field.getName()}`);
  }
}

/** /V as the options' export values and /I as their indices (ISO 32000-2 section 12.7.5.4), once the appearance shows their text. */
function writeExportValues(field: PDFField, options: readonly FormOption[]): void {
  const dict = field.acroField.dict;
  const values = options.map((option) => PDFHexString.fromText(option.value));
  if (values.length === 0) dict.delete(PDFName.of('V'));
  else dict.set(PDFName.of('V'), values.length === 1 ? (values[0] as PDFHexString) : dict.context.obj(values));
  const indices = optionIndices(field, options);
  if (indices.length > 1) dict.set(PDFName.of('I'), dict.context.obj(indices));
  else dict.delete(PDFName.of('I'));
}

/** The options' indices in the field's /Opt, ascending; an option is its export value and text (two may share an export value). */
function optionIndices(field: PDFField, options: readonly FormOption[]): number[] {
  const all = describe(field).options;
  const at = (option: FormOption) => {
    const exact = all.findIndex((candidate) => candidate.value === option.value && candidate.display === option.display);
    return exact >= 0 ? exact : all.findIndex((candidate) => candidate.value === option.value);
  };
  return options.map(at).filter((index) => index >= 0).sort((a, b) => a - b);
}

/**
 * The fields signed signatures lock (ISO 32000-2 section 12.7.5.5, the
 * signature field's /Lock): Action All, Include /Fields, or Exclude
 * /Fields; P 1 (no changes) locks all. Changing one makes viewers report
 * that signature as broken by a later change.
 */
function lockedFields(signatures: readonly PDFField[], names: readonly string[]): Map<string, string> {
  const locks = new Map<string, string>();
  for (const signature of signatures) {
    const lock = signature.acroField.dict.lookupMaybe(PDFName.of('Lock'), PDFDict);
    if (lock === undefined) continue;
    const action = lock.lookupMaybe(PDFName.of('Action'), PDFName)?.decodeText();
    const listed = new Set((lock.lookupMaybe(PDFName.of('Fields'), PDFArray)?.asArray() ?? []).map((entry) => (entry instanceof PDFString || entry instanceof PDFHexString ? entry.decodeText() : '')));
    const allChanges = lock.lookupMaybe(PDFName.of('P'), PDFNumber)?.asNumber() === 1;
    for (const name of names) {
      // A listed name also covers its descendants ("person" locks "person.name").
      const isListed = [...listed].some((entry) => name === entry || name.startsWith(`${entry}.`));
      const locked = allChanges || action === 'All' || (action === 'Include' && isListed) || (action === 'Exclude' && !isListed);
      if (locked && !locks.has(name) && name !== signature.getName()) locks.set(name, signature.getName());
    }
  }
  return locks;
}

/** Whether a certification signature's DocMDP transform says P 1 (ISO 32000-2 section 12.8.2.2). */
function forbidsChanges(doc: PDFDocument): boolean {
  const docMdp = doc.catalog.lookupMaybe(PDFName.of('Perms'), PDFDict)?.lookupMaybe(PDFName.of('DocMDP'), PDFDict);
  for (const reference of docMdp?.lookupMaybe(PDFName.of('Reference'), PDFArray)?.asArray() ?? []) {
    const dict = doc.context.lookupMaybe(reference, PDFDict);
    const p = dict?.lookupMaybe(PDFName.of('TransformParams'), PDFDict)?.lookupMaybe(PDFName.of('P'), PDFNumber);
    if (dict?.lookupMaybe(PDFName.of('TransformMethod'), PDFName)?.asString() === '/DocMDP' && p?.asNumber() === 1) return true;
  }
  return false;
}
