// The fill-form request's values checked against the document's fields:
// each value becomes what its field takes (a text, a check box's "on"
// state, a radio option, choice options), or one errors[] entry naming
// `fields.<name>`. Every bad field is reported at once, so a client fixes
// its request in one round trip.
import type { FieldError } from '../protocol.js';
import type { FormFieldInfo, FormOption, FormValue } from '../seams/pdf-form.js';

/** Longer texts are no form entry; the bound keeps layout work small. */
export const MAX_TEXT_LENGTH = 100_000;
/** Options quoted in a message at most. */
const QUOTED_OPTIONS = 20;

export interface FormShape {
  readonly fields: ReadonlyMap<string, FormFieldInfo>;
  readonly groups: ReadonlySet<string>;
  /** Fields a signature locks, with that signature field's name: refused even with force. */
  readonly locks: ReadonlyMap<string, string>;
}

export interface CheckedValues {
  readonly values: Map<string, FormValue>;
  readonly errors: FieldError[];
}

/**
 * `missing(text)`: the characters no font of the form can draw (the seam's
 * missingCharacters with the fallback fonts).
 */
export function checkValues(requested: Readonly<Record<string, unknown>>, form: FormShape, force: boolean, missing: (text: string) => string[]): CheckedValues {
  const values = new Map<string, FormValue>();
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(requested)) {
    const field = `fields.${name}`;
    const info = form.fields.get(name);
    const lockedBy = form.locks.get(name);
    const result =
      info === undefined
        ? unknownField(name, form)
        : lockedBy !== undefined
          ? { code: 'READ_ONLY', message: `"${name}" is locked by the signature "${lockedBy}" (its /Lock): filling it would invalidate that signature, so force does not apply.` }
          : info.readOnly && !force
            ? { code: 'READ_ONLY', message: readOnlyMessage(info) }
            : valueFor(info, value, missing);
    if ('code' in result) errors.push({ field, ...result });
    else values.set(name, result);
  }
  return { values, errors };
}

interface Problem {
  readonly code: string;
  readonly message: string;
}

type Checked = FormValue | Problem;

function unknownField(name: string, form: FormShape): Problem {
  if (form.fields.size === 0) return { code: 'UNKNOWN_FIELD', message: 'The document has no form fields.' };
  if (form.groups.has(name)) {
    const members = [...form.fields.keys()].filter((candidate) => candidate.startsWith(`${name}.`));
    return { code: 'UNKNOWN_FIELD', message: `"${name}" is a group of fields, not a field; name one of them by its fully qualified name (${quote(members)}).` };
  }
  return { code: 'UNKNOWN_FIELD', message: `The document has no field named "${name}"; names are fully qualified ("parent.child"), as parse's form_fields lists them.` };
}

function readOnlyMessage(info: FormFieldInfo): string {
  return `"${info.name}" is read-only; send "force": true to fill it anyway.`;
}

function valueFor(info: FormFieldInfo, value: unknown, missing: (text: string) => string[]): Checked {
  switch (info.kind) {
    case 'text':
      return textValue(info, value, missing);
    case 'checkbox':
      return checkBoxValue(info, value);
    case 'radio':
      if (typeof value !== 'string') return { code: 'INVALID_TYPE', message: `A radio group takes one of its options as a string: ${quote(info.options.map((o) => o.value))}.` };
      {
        // The export value, or the name of the button's "on" state (what parse's form_fields reports).
        const option = info.options.find((o) => o.value === value) ?? info.options.find((o) => o.display === value);
        if (option === undefined) return { code: 'INVALID_OPTION', message: `"${value}" is not an option of this radio group: ${quote(info.options.map((o) => o.value))}.` };
        return { kind: 'radio', option: option.value };
      }
    case 'combo':
    case 'list':
      return choiceValue(info, value, missing);
    case 'button':
      return { code: 'INVALID_TYPE', message: 'A push button holds no value.' };
    case 'signature':
      return { code: 'INVALID_TYPE', message: 'A signature field is signed, not filled: use POST /api/v1/sign with field_name.' };
  }
}

function textValue(info: FormFieldInfo, value: unknown, missing: (text: string) => string[]): Checked {
  if (typeof value !== 'string') return { code: 'INVALID_TYPE', message: 'A text field takes a string.' };
  const length = [...value].length;
  if (info.maxLength !== undefined && length > info.maxLength) return { code: 'TOO_LONG', message: `${length} characters; this field takes at most ${info.maxLength} (its MaxLen).` };
  if (length > MAX_TEXT_LENGTH) return { code: 'TOO_LONG', message: `${length} characters; a field takes at most ${MAX_TEXT_LENGTH}.` };
  if (!info.multiline && /[\r\n]/.test(value)) return { code: 'INVALID_VALUE', message: 'A single-line field takes no line breaks; send one line, or fill a multi-line field.' };
  const unsupported = missing(value);
  if (unsupported.length > 0) return unsupportedMessage(unsupported);
  return { kind: 'text', text: value };
}

function checkBoxValue(info: FormFieldInfo, value: unknown): Checked {
  const on = info.options.map((option) => option.value);
  const takes = `true, false${on.length > 0 ? `, or its export value ${quote(on)}` : ''}`;
  if (value === false || value === 'Off') return { kind: 'checkbox', on: null };
  if (value === true) return on[0] === undefined ? { code: 'INVALID_VALUE', message: 'This check box has no "on" state to turn on.' } : { kind: 'checkbox', on: on[0] };
  if (typeof value !== 'string') return { code: 'INVALID_TYPE', message: `A check box takes ${takes}.` };
  if (!on.includes(value)) return { code: 'INVALID_OPTION', message: `"${value}" is not this check box's export value; it takes ${takes}.` };
  return { kind: 'checkbox', on: value };
}

function choiceValue(info: FormFieldInfo, value: unknown, missing: (text: string) => string[]): Checked {
  const multi = info.kind === 'list' && info.multiSelect;
  const wanted = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((item) => typeof item === 'string') ? [...new Set(value as string[])] : undefined;
  const shown = info.options.map((option) => option.display);
  if (wanted === undefined) return { code: 'INVALID_TYPE', message: `A ${multi ? 'multi-select list box takes an option or a list of options' : 'choice field takes one of its options'} as ${multi ? 'strings' : 'a string'}: ${quote(shown)}.` };
  if (wanted.length > 1 && !multi) return { code: 'INVALID_TYPE', message: 'This choice field takes one option, not a list: it is not a multi-select list box.' };
  const options: FormOption[] = [];
  const unknown: string[] = [];
  for (const item of wanted) {
    // Either the export value or the text shown names an option.
    const option = info.options.find((o) => o.value === item) ?? info.options.find((o) => o.display === item);
    if (option !== undefined) options.push(option);
    else if (info.editable) options.push({ value: item, display: item });
    else unknown.push(item);
  }
  if (unknown.length > 0) return { code: 'INVALID_OPTION', message: `${quote(unknown)} ${unknown.length === 1 ? 'is not an option' : 'are not options'} of this field: ${quote(shown)}.` };
  const unsupported = missing(options.map((option) => option.display).join(''));
  if (unsupported.length > 0) return unsupportedMessage(unsupported);
  return { kind: 'choice', options };
}

function unsupportedMessage(characters: readonly string[]): Problem {
  const listed = characters.slice(0, QUOTED_OPTIONS).map((c) => `"${c}" (U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')})`);
  return { code: 'UNSUPPORTED_CHARACTERS', message: `No font the form can use (Helvetica, DejaVu Sans, the Noto faces of the scripts) draws ${listed.join(', ')}; send the value without these characters.` };
}

function quote(items: readonly string[]): string {
  if (items.length === 0) return 'none';
  const shown = items.slice(0, QUOTED_OPTIONS).map((item) => `"${item}"`).join(', ');
  return items.length > QUOTED_OPTIONS ? `${shown}, ... (${items.length} in all)` : shown;
}
