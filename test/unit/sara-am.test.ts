// Thai and Lao SARA AM prepared as HarfBuzz's Thai shaper does (workers/font/sara-am.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasSaraAm, prepareSaraAm } from '../../workers/font/sara-am.js';

const every = (): boolean => true;

test('SARA AM becomes NIKHAHIT before the tone marks and SARA AA after them', () => {
  assert.equal(prepareSaraAm('น้ำ', every), 'น\u0E4D\u0E49\u0E32');
  assert.equal(prepareSaraAm('ทำ', every), 'ท\u0E4D\u0E32');
  assert.equal(prepareSaraAm('น้ำใจ ค่ำ', every), 'น\u0E4D\u0E49\u0E32ใจ ค\u0E4D\u0E48\u0E32');
  // Lao SARA AM (U+0EB3) after MAI THO (U+0EC9).
  assert.equal(prepareSaraAm('ນ້ຳ', every), 'ນ\u0ECD\u0EC9\u0EB2');
});

test('a font without NIKHAHIT or SARA AA keeps SARA AM as sent; text without SARA AM is not touched', () => {
  assert.equal(prepareSaraAm('น้ำ', (code) => code !== 0x0e4d), 'น้ำ');
  assert.equal(hasSaraAm('สวัสดี Platen'), false);
  assert.equal(hasSaraAm('น้ำ'), true);
});
