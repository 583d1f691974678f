// The nesting count in front of qpdf (untrusted/pdf-nesting.ts): what it
// counts, and what it must not mistake for nesting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NESTING, nestsDeeperThan } from '../../workers/untrusted/pdf-nesting.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');
const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const dictionaries = (depth: number) => `${'<< /A '.repeat(depth)}1${' >>'.repeat(depth)}`;

test('arrays and dictionaries count, alone and mixed, up to the limit and past it', () => {
  assert.equal(nestsDeeperThan(bytes(`1 0 obj ${arrays(MAX_NESTING)} endobj`)), false);
  assert.equal(nestsDeeperThan(bytes(`1 0 obj ${arrays(MAX_NESTING + 1)} endobj`)), true);
  assert.equal(nestsDeeperThan(bytes(`1 0 obj ${dictionaries(MAX_NESTING + 1)} endobj`)), true);
  assert.equal(nestsDeeperThan(bytes(`1 0 obj ${'[<</K '.repeat(51)}${'>>]'.repeat(51)} endobj`)), true);
});

test('brackets in strings, hex strings, comments and stream data are not nesting', () => {
  const deep = '['.repeat(MAX_NESTING + 5);
  assert.equal(nestsDeeperThan(bytes(`1 0 obj (${deep} \\( ( nested ) ) endobj`)), false);
  assert.equal(nestsDeeperThan(bytes(`1 0 obj <5b5b5b> % ${deep}\n endobj`)), false);
  assert.equal(nestsDeeperThan(bytes(`1 0 obj << /Length 200 >>\nstream\n${deep}<<<<\nendstream\nendobj`)), false);
});

test('each object starts at depth 0: unclosed arrays in damaged objects do not add up', () => {
  const damaged = Array.from({ length: MAX_NESTING * 2 }, (_, i) => `${i + 1} 0 obj [1 2 endobj`).join('\n');
  assert.equal(nestsDeeperThan(bytes(damaged)), false);
});

test('keywords count only as whole words: /streams and endstream do not skip, endobjX does not reset', () => {
  assert.equal(nestsDeeperThan(bytes(`1 0 obj << /streams ${arrays(MAX_NESTING + 1)} >> endobj`)), true);
  assert.equal(nestsDeeperThan(bytes(`1 0 obj ${'['.repeat(60)} /endobjX ${'['.repeat(60)} endobj`)), true);
});
