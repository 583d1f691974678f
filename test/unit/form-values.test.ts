// The fill-form values checked against field descriptions, without a PDF:
// what each kind of field takes, and one error per bad field with its code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkValues, type FormShape } from '../../workers/docops/form-values.js';
import type { FormFieldInfo } from '../../workers/seams/pdf-form.js';

const base = { readOnly: false, maxLength: undefined, multiline: false, comb: false, options: [], editable: false, multiSelect: false };
const field = (name: string, info: Partial<FormFieldInfo> & Pick<FormFieldInfo, 'kind'>): [string, FormFieldInfo] => [name, { ...base, name, ...info }];
const form: FormShape = {
  fields: new Map([
    field('a.text', { kind: 'text', maxLength: 3 }),
    field('a.multi', { kind: 'text', multiline: true }),
    field('box', { kind: 'checkbox', options: [{ value: 'On', display: 'On' }] }),
    field('radio', { kind: 'radio', options: [{ value: 'left', display: '0' }, { value: 'right', display: '1' }] }),
    field('combo', { kind: 'combo', options: [{ value: 'CH', display: 'Switzerland' }] }),
    field('edit', { kind: 'combo', editable: true, options: [{ value: 'x', display: 'x' }] }),
    field('list', { kind: 'list', multiSelect: true, options: [{ value: 'a', display: 'A' }, { value: 'b', display: 'B' }] }),
    field('locked', { kind: 'text', readOnly: true }),
  ]),
  groups: new Set(['a']),
  locks: new Map(),
};
const noneMissing = () => [];

test('each kind takes what its field holds', () => {
  const { values, errors } = checkValues(
    { 'a.text': 'äöü', 'a.multi': 'one\ntwo', box: true, radio: '1', combo: 'Switzerland', edit: 'free text', list: ['b', 'A', 'b'] },
    form,
    false,
    noneMissing,
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(Object.fromEntries(values), {
    'a.text': { kind: 'text', text: 'äöü' },
    'a.multi': { kind: 'text', text: 'one\ntwo' },
    box: { kind: 'checkbox', on: 'On' },
    radio: { kind: 'radio', option: 'right' },
    combo: { kind: 'choice', options: [{ value: 'CH', display: 'Switzerland' }] },
    edit: { kind: 'choice', options: [{ value: 'free text', display: 'free text' }] },
    list: { kind: 'choice', options: [{ value: 'b', display: 'B' }, { value: 'a', display: 'A' }] },
  });
  assert.deepEqual(checkValues({ box: 'Off' }, form, false, noneMissing).values.get('box'), { kind: 'checkbox', on: null });
  assert.deepEqual(checkValues({ locked: 'x' }, form, true, noneMissing).errors, []);
});

test('a field a signature locks is READ_ONLY even with force', () => {
  const locked = { ...form, locks: new Map([['a.text', 'Approval']]) };
  const { errors } = checkValues({ 'a.text': 'x' }, locked, true, noneMissing);
  assert.deepEqual(errors.map((error) => [error.field, error.code]), [['fields.a.text', 'READ_ONLY']]);
  assert.match(errors[0]?.message ?? '', /locked by the signature "Approval"/);
});

test('MaxLen counts characters, not UTF-16 units', () => {
  assert.deepEqual(checkValues({ 'a.text': '😀😀😀' }, form, false, noneMissing).errors, []);
  assert.deepEqual(checkValues({ 'a.text': 'abcd' }, form, false, noneMissing).errors.map((e) => e.code), ['TOO_LONG']);
});

test('one error per bad field, each with its code', () => {
  const { values, errors } = checkValues(
    { a: 'x', missing: 'x', 'a.text': 1, box: 'Yes', radio: 'middle', combo: 'CH2', list: [1], locked: 'x', 'a.multi': 'ok' },
    form,
    false,
    (text) => (text === 'ok' ? ['?'] : []),
  );
  assert.equal(values.size, 0);
  assert.deepEqual(
    errors.map((error) => [error.field, error.code]),
    [
      ['fields.a', 'UNKNOWN_FIELD'],
      ['fields.missing', 'UNKNOWN_FIELD'],
      ['fields.a.text', 'INVALID_TYPE'],
      ['fields.box', 'INVALID_OPTION'],
      ['fields.radio', 'INVALID_OPTION'],
      ['fields.combo', 'INVALID_OPTION'],
      ['fields.list', 'INVALID_TYPE'],
      ['fields.locked', 'READ_ONLY'],
      ['fields.a.multi', 'UNSUPPORTED_CHARACTERS'],
    ],
  );
  assert.match(errors[0]?.message ?? '', /group of fields.*"a\.text", "a\.multi"/);
});
