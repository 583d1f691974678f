// The nesting count in front of qpdf (untrusted/pdf-nesting.ts): what it
// counts, and what it must not mistake for nesting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { MAX_NESTING, nestsDeeperThan, objectStreamsNestDeeperThan } from '../../workers/untrusted/pdf-nesting.js';

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

/** A file of one object stream holding `objects`, its data encoded by `filter` (none, Flate or ASCIIHex). */
function objectStream(objects: readonly string[], filter: 'none' | 'FlateDecode' | 'ASCIIHexDecode', type = 'ObjStm'): Buffer {
  let offsets = '';
  let body = '';
  objects.forEach((object, i) => {
    offsets += `${i + 2} ${body.length} `;
    body += `${object}\n`;
  });
  const plain = Buffer.from(offsets + body, 'latin1');
  const data = filter === 'FlateDecode' ? deflateSync(plain) : filter === 'ASCIIHexDecode' ? Buffer.from(`${plain.toString('hex')}>`, 'latin1') : plain;
  const filterEntry = filter === 'none' ? '' : ` /Filter /${filter}`;
  const header = '%PDF-1.7\n';
  const head = `1 0 obj\n<< /Type /${type} /N ${objects.length} /First ${offsets.length}${filterEntry} /Length ${data.length} >>\nstream\n`;
  const tail = '\nendstream\nendobj\n';
  // A cross-reference table, so the stream's dictionary is read as qpdf reads it (rawStreams).
  const xref = header.length + head.length + data.length + tail.length;
  const table = `xref\n0 2\n0000000000 65535 f \n${String(header.length).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 2 >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.concat([Buffer.from(header + head, 'latin1'), data, Buffer.from(tail + table, 'latin1')]);
}

test('objects inside object streams are counted decoded, whatever filter of those decoded here encodes them', async () => {
  for (const filter of ['none', 'FlateDecode', 'ASCIIHexDecode'] as const) {
    const deep = objectStream(['<< /Type /Catalog >>', arrays(MAX_NESTING + 1)], filter);
    // Compressed, the nesting is not in the file's own bytes: only the decoded stream shows it.
    if (filter !== 'none') assert.equal(nestsDeeperThan(deep), false, filter);
    assert.equal(await objectStreamsNestDeeperThan(deep), true, filter);
    assert.equal(await objectStreamsNestDeeperThan(objectStream(['<< /Type /Catalog >>', arrays(MAX_NESTING)], filter)), false, filter);
  }
});

test('only object streams are decoded: a content stream or an image may hold any bytes', async () => {
  assert.equal(await objectStreamsNestDeeperThan(objectStream([arrays(MAX_NESTING + 1)], 'FlateDecode', 'XObject')), false);
});
