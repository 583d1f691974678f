// The `fill-form` task (POST /api/v1/fill-form, pro): values into a PDF's
// AcroForm fields by fully qualified name, with appearance streams so that
// every viewer shows them (workers/seams/pdf-form.ts), optionally flattened
// into the pages.
//
// Decisions where the issue is silent (README "fill-form"):
// - a signed document is filled as an incremental update, so its
//   signatures stay valid over what they signed, as when a person fills a
//   signed form in a viewer; flattening it is refused, since that rewrites
//   the signed pages and removes the signature fields;
// - a certification signature that allows no changes (DocMDP P 1) is 422
//   document-certified, as for sign;
// - an XFA-only form (no AcroForm fields) is 422 xfa-form-unsupported; a
//   hybrid form loses its XFA part, so XFA viewers show the AcroForm values;
// - an encrypted document is opened with `password` and written
//   unencrypted, as merge and split do.
import * as v from 'valibot';
import type { DocOpsOptions } from '../protocol.js';
import { OpenFailure, openForm, type FormDocument } from '../seams/pdf-form.js';
import { inWinAnsi, missingCharacters, undrawableCharacters } from '../seams/pdf-form-appearance.js';
import { dejavu } from '../render/fonts.js';
import { scriptFaces } from '../render/script-fonts.js';
import { binaryTask, TaskFailure, type BinaryResult } from '../task/json-task.js';
import { openFailure } from '../task/open-failure.js';
import { decodePdfField } from '../task/pdf-field.js';
import { NO_DECODED_CAP, Password } from './fields.js';
import { BoundedMap } from '../util/bounded-map.js';
import { fieldListDrawer } from './field-list.js';
import { fieldTextDrawer } from './field-text.js';
import { checkValues } from './form-values.js';
import { base64Member } from '../task/decoded-member.js';

/** Fields in one request: far more than any form has, bounded so a request cannot ask for unbounded work. */
export const MAX_FILLED_FIELDS = 10_000;
const FALLBACK_FONT = 'DejaVuSans';

const FillFormRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(Password),
  fields: v.pipe(
    v.record(v.string(), v.unknown()),
    v.check((fields) => Object.keys(fields).length <= MAX_FILLED_FIELDS, `must name at most ${MAX_FILLED_FIELDS} fields`),
  ),
  flatten: v.optional(v.boolean(), false),
  force: v.optional(v.boolean(), false),
});

type FillFormRequest = v.InferOutput<typeof FillFormRequest>;

export const fillForm = binaryTask(FillFormRequest, async (request: FillFormRequest, _options: DocOpsOptions): Promise<BinaryResult> => {
  const bytes = decodePdfField(request.pdf, 'pdf', NO_DECODED_CAP);
  const fonts = await fallbackFonts(request.fields);
  let form: FormDocument;
  try {
    form = await openForm(bytes, request.password, fonts);
  } catch (error) {
    if (!(error instanceof OpenFailure)) throw error;
    throw openFailure(error, 'pdf', 'password');
  }
  refuseDocument(form, request);
  const { values, errors } = checkValues(request.fields, form, request.force, (text) => undrawableCharacters(text, fonts));
  if (errors.length > 0) {
    const detail = errors.length === 1 ? `${errors[0]?.field}: ${errors[0]?.message}` : `${errors.length} fields cannot be filled as sent; errors[] names each.`;
    throw new TaskFailure('invalid', detail, errors);
  }
  // pdf-lib draws a value one font has, left to right; the render engine's layout the rest (field-text.ts) and every list box (field-list.ts).
  await form.fill(values, { text: fieldTextDrawer((text) => missingCharacters(text, fonts).length === 0), list: fieldListDrawer() });
  return { bytes: await form.save({ flatten: request.flatten }), mediaType: 'application/pdf' };
}, { binaryFields: ['pdf'] });

/**
 * The fonts a value may be drawn in beyond Helvetica: DejaVu Sans, then,
 * for characters of other scripts in the values, the render engine's Noto
 * face of each (the first whose ranges have the character), so a Hindi or
 * Chinese value shows as it does in a rendered document.
 */
async function fallbackFonts(fields: Readonly<Record<string, unknown>>): Promise<Uint8Array[]> {
  const needed = new Set<ScriptFace>();
  const texts = Object.values(fields).flatMap((value) => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []));
  for (const text of texts) {
    for (const char of text) {
      const codePoint = char.codePointAt(0) as number;
      if (inWinAnsi(codePoint)) continue;
      const face = scriptFaceFor(codePoint);
      if (face !== null) needed.add(face);
    }
  }
  return [dejavu(FALLBACK_FONT), ...(await Promise.all([...needed].map((face) => face.load(false))))];
}

type ScriptFace = ReturnType<typeof scriptFaces>[number];

/**
 * The first script face that may have a code point, by code point. The
 * search walks the faces' published ranges, 458 faces with the Han slices:
 * 40-55 µs a character, so ~1.1 ms of a 10 ms fill of the bench's form with
 * 24 Cyrillic and Greek characters (a profile of the task, issue 11's speed).
 * The faces and their ranges are fixed, so the answer is too; bounded, as a
 * worker's caches live as long as it does.
 */
const faceByCodePoint = new BoundedMap<number, ScriptFace | null>(8192, 8192, () => 1);

function scriptFaceFor(codePoint: number): ScriptFace | null {
  let face = faceByCodePoint.get(codePoint);
  if (face === undefined) {
    face = scriptFaces(undefined).find((candidate) => candidate.mayCover(codePoint)) ?? null;
    faceByCodePoint.set(codePoint, face);
  }
  return face;
}

/** The document-level refusals, before any value is looked at. */
function refuseDocument(form: FormDocument, request: FillFormRequest): void {
  if (form.xfa === 'only') {
    throw new TaskFailure('xfa-form-unsupported', 'The form is an XFA form with no AcroForm fields to fill. Fill it in an XFA-capable application, or export it as an AcroForm (static) PDF and send that.', [
      { field: 'pdf', code: 'XFA_FORM', message: 'An XFA-only form: its fields exist only in the XFA data, which this server does not fill.' },
    ]);
  }
  if (form.certifiedNoChanges) {
    throw new TaskFailure('document-certified', 'The document carries a certification signature that allows no changes (DocMDP P=1); filling its form would invalidate it.', [
      { field: 'pdf', code: 'CERTIFIED_NO_CHANGES', message: 'A certification signature with DocMDP P=1 forbids any change, form filling included.' },
    ]);
  }
  if (form.signed && request.flatten) {
    throw TaskFailure.field('flatten', 'INVALID_VALUE', 'The document is signed: flattening rewrites the signed pages and removes the signature fields, which invalidates the signatures. Fill it without flatten (an incremental update that keeps them valid).');
  }
  if (form.signed && form.encrypted) {
    throw TaskFailure.content('invalid-pdf-data', 'pdf', 'INVALID_PDF', 'is signed and encrypted; it cannot be filled as an incremental update here. Fill it before it is encrypted.');
  }
}
