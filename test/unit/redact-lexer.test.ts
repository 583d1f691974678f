// The redaction's content-stream lexer: operands and operators with their
// byte ranges, string escapes, hex strings, and inline images whose binary
// data must never be read as operators.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContentSyntaxError, lexContent, type Operand } from '../../workers/docops/redact/lexer.js';

const lex = (text: string) => lexContent(Buffer.from(text, 'latin1'));
const bytes = (operand: Operand | undefined) => (operand?.kind === 'string' ? Buffer.from(operand.bytes).toString('latin1') : null);

test('operators with their operands and byte ranges', () => {
  const source = 'q 1 0 0 1 50 700 cm BT /F1 12 Tf (Hi) Tj ET Q';
  const operations = lex(source);
  assert.deepEqual(operations.map((op) => op.operator), ['q', 'cm', 'BT', 'Tf', 'Tj', 'ET', 'Q']);
  const cm = operations[1];
  assert.deepEqual(cm?.operands.map((operand) => (operand.kind === 'number' ? operand.value : null)), [1, 0, 0, 1, 50, 700]);
  assert.equal(source.slice(cm?.start, cm?.end), '1 0 0 1 50 700 cm');
  assert.deepEqual(operations[3]?.operands[0], { kind: 'name', value: 'F1' });
});

test('literal strings: escapes, octal, balanced parentheses, line continuation; hex strings with an odd digit', () => {
  const [tj, hex] = lex('(a\\(b\\)c\\n\\101\\0612(x)y\\\nz) Tj <48 656C6C6F 2> Tj');
  assert.equal(bytes(tj?.operands[0]), 'a(b)c\nA12(x)yz');
  assert.equal(bytes(hex?.operands[0]), 'Hello ');
});

test('TJ arrays keep strings and numbers in order; dictionaries and keywords are kept as "other"', () => {
  const [tj, bdc] = lex('[(A) -120.5 <42> 3] TJ /Span << /ActualText (x) /MCID 3 >> BDC');
  assert.equal(tj?.operands[0]?.kind, 'array');
  const items = tj?.operands[0]?.kind === 'array' ? tj.operands[0].items : [];
  assert.deepEqual(items.map((item) => (item.kind === 'number' ? item.value : bytes(item))), ['A', -120.5, 'B', 3]);
  assert.deepEqual(bdc?.operands.map((operand) => operand.kind), ['name', 'other']);
});

test('an inline image is one operation; its data (with "Tj" and "EI" inside words) is skipped', () => {
  const source = 'q BI /W 4 /H 1 /BPC 8 /CS /G ID \x00Tj)EIx\xff EI Q (after) Tj';
  const operations = lex(source);
  assert.deepEqual(operations.map((op) => op.operator), ['q', 'BI', 'Q', 'Tj']);
  assert.equal(source.slice(operations[1]?.start, operations[1]?.end).endsWith(' EI'), true);
  assert.equal(bytes(operations[3]?.operands[0]), 'after');
});

test('comments are skipped; unterminated strings and inline images are syntax errors', () => {
  assert.deepEqual(lex('% a comment (not a string\nq Q').map((op) => op.operator), ['q', 'Q']);
  assert.throws(() => lex('(never closed Tj'), ContentSyntaxError);
  assert.throws(() => lex('BI /W 1 ID xyz'), ContentSyntaxError);
  assert.throws(() => lex(`${'['.repeat(100)}`), ContentSyntaxError);
});
