// The count in front of qpdf, without a server: the streaming decoders of
// untrusted/pdf-filters.ts against pdf-lib's own, the bounded chain decoding
// of untrusted/decoded-bytes.ts, how untrusted/pdf-streams.ts finds streams
// and their dictionaries (including ones built to be misread), and which
// streams seams/qpdf-decodes.ts counts for each kind of qpdf run, byte for
// byte, including dictionaries built to be misread. The HTTP side is
// test/decode-bombs-qpdf.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { decodePDFRawStream, PDFDocument, PDFRawStream } from '@cantoo/pdf-lib';
import { chargeQpdfDecoding, type QpdfDecodes } from '../../workers/seams/qpdf-decodes.js';
import { chargeFilterChain, DecodedBudget, DecodedBytesExceeded, openDecodedBudget } from '../../workers/untrusted/decoded-bytes.js';
import { chunkDecoder } from '../../workers/untrusted/pdf-filters.js';
import { filtersOf, rawStreams } from '../../workers/untrusted/pdf-streams.js';
import { PdfRef } from '../../workers/untrusted/pdf-values.js';
import { ascii85Encode, lzwEncode, pdfOf, runLengthEncode, zlibOfRepeated } from '../helpers/bomb-pdfs.js';

const MiB = 1024 * 1024;

function stream(dict: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}

/** What a budget of `cap` has charged. */
const spent = (budget: DecodedBudget) => budget.cap - budget.remaining;

test('the streaming decoders decode as pdf-lib does, whatever the chunks they are fed', async () => {
  const doc = await PDFDocument.create();
  const byPdfLib = (filter: string, data: Uint8Array) => Buffer.from(decodePDFRawStream(PDFRawStream.of(doc.context.obj({ Filter: filter }), data)).decode());
  const text = Buffer.from(Array.from({ length: 200_000 }, (_, i) => 'the quick brown fox '.charCodeAt(i % 20) ^ ((i >> 9) & 3)));
  const samples = { text, random: randomBytes(50_000), zeros: Buffer.alloc(100_000), spaces: Buffer.alloc(3 * MiB, 0x20) };
  const encoders: Record<string, (data: Uint8Array) => Buffer> = {
    LZWDecode: lzwEncode,
    ASCII85Decode: ascii85Encode,
    RunLengthDecode: runLengthEncode,
    ASCIIHexDecode: (data) => Buffer.from(`${Buffer.from(data).toString('hex')}>`, 'latin1'),
  };
  for (const [name, data] of Object.entries(samples)) {
    for (const [filter, encode] of Object.entries(encoders)) {
      const encoded = encode(data);
      assert.ok(byPdfLib(filter, encoded).equals(data), `${filter} ${name}: the encoder (test/helpers) is wrong`);
      for (const step of [1, 7, 4093]) {
        if (step === 1 && encoded.length > 300_000) continue;
        const decoder = chunkDecoder(filter);
        assert.ok(decoder !== undefined);
        const chunks: Uint8Array[] = [];
        for (let i = 0; i < encoded.length; i += step) chunks.push(...decoder.push(encoded.subarray(i, i + step)));
        chunks.push(...decoder.end());
        assert.ok(Buffer.concat(chunks).equals(data), `${filter} ${name}, ${step}-byte chunks`);
        assert.ok(chunks.every((chunk) => chunk.length <= 256 * 1024), `${filter} ${name}: chunks of at most 256 KiB`);
      }
    }
  }
  assert.equal(chunkDecoder('FlateDecode'), undefined);
  assert.equal(chunkDecoder('DCTDecode'), undefined);
});

test('chargeFilterChain charges every layer, stops at the cap naming the member, and ends the count where damaged data ends', async () => {
  const flate2 = [{ name: 'FlateDecode' }, { name: 'FlateDecode' }];
  // 2 MiB through two layers: past the at-once limit, so decoded a chunk at a time.
  const inner = zlibOfRepeated(2 * MiB);
  let budget = openDecodedBudget(8 * MiB);
  await chargeFilterChain(deflateSync(inner), flate2, 'pdf', budget);
  assert.equal(spent(budget), inner.length + 2 * MiB);
  // The same at once (small), and an LZW chain.
  budget = openDecodedBudget(8 * MiB);
  await chargeFilterChain(deflateSync(deflateSync(Buffer.alloc(1000, 7))), flate2, 'pdf', budget);
  assert.equal(spent(budget), deflateSync(Buffer.alloc(1000, 7)).length + 1000);
  budget = openDecodedBudget(64 * MiB);
  await chargeFilterChain(lzwEncode(Buffer.alloc(20 * MiB, 0x20)), [{ name: 'LZW' }], 'pdf', budget);
  assert.equal(spent(budget), 20 * MiB);

  // A bomb: 64 MiB against 8. The throw names no member of its own; the budget remembers it.
  budget = openDecodedBudget(8 * MiB);
  await assert.rejects(chargeFilterChain(deflateSync(zlibOfRepeated(64 * MiB)), flate2, 'documents[3].pdf', budget), DecodedBytesExceeded);
  assert.equal(budget.exceeded, true);
  assert.equal(budget.source, 'documents[3].pdf');
  budget = openDecodedBudget(8 * MiB);
  await assert.rejects(chargeFilterChain(ascii85Encode(zlibOfRepeated(64 * MiB)), [{ name: 'A85' }, { name: 'Fl' }], 'pdf', budget), DecodedBytesExceeded);

  // Damaged: a zlib header and garbage, or a stream cut short. No throw; what decoded is charged.
  budget = openDecodedBudget(8 * MiB);
  await chargeFilterChain(Buffer.concat([Buffer.from([0x78, 0x9c]), randomBytes(100)]), [{ name: 'FlateDecode' }], 'pdf', budget);
  const cut = zlibOfRepeated(4 * MiB);
  await chargeFilterChain(cut.subarray(0, cut.length / 2), [{ name: 'FlateDecode' }], 'pdf', budget);
  assert.ok(budget.exceeded === false && spent(budget) > 0 && spent(budget) <= 4 * MiB, `${spent(budget)}`);
});

test('rawStreams reads each dictionary (references, escapes, strings) and never cuts a stream short', () => {
  // A stored deflate block holding the word `endstream`, then the rest: a
  // search for endstream would stop inside the data.
  const tricky = Buffer.concat([
    Buffer.from([0x78, 0x01]),
    deflateRawSync(Buffer.from('\nendstream\nendobj\n', 'latin1'), { level: 0, finishFlush: constants.Z_FULL_FLUSH }),
    zlibOfRepeated(MiB).subarray(2),
  ]);
  const withLength = (length: string) => Buffer.concat([Buffer.from(`<< /Length ${length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), tricky, Buffer.from('\nendstream', 'latin1')]);
  const pdf = Buffer.from(pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    withLength('3 0 R'),
    String(tricky.length),
    withLength('99 0 R'),
    stream('/Filter /Flate#44ecode /T (1 0 obj <<)', deflateSync(Buffer.alloc(10))),
    stream('/Filter [/ASCII85Decode /LZWDecode] /DecodeParms [null << /EarlyChange 0 >>]', Buffer.from('z~>', 'latin1')),
  ]));
  const streams = [...rawStreams(pdf)];
  assert.equal(streams.length, 4);
  const [resolved, unknown, escaped, chained] = streams;
  assert.ok(resolved?.dict?.get('Length') instanceof PdfRef, 'an indirect /Length is a reference, not the number 3');
  assert.equal(resolved.data().length, tricky.length, 'a reference to a length in the file is followed');
  assert.equal(resolved.lengthKnown, true);
  assert.equal(unknown!.data().length, pdf.length - pdf.lastIndexOf(tricky), 'an unknown length runs to the end of the file');
  assert.equal(unknown!.lengthKnown, false);
  assert.deepEqual(filtersOf(escaped!.dict!), [{ name: 'FlateDecode' }]);
  assert.equal(escaped!.data().length, deflateSync(Buffer.alloc(10)).length);
  assert.deepEqual(filtersOf(chained!.dict!), [{ name: 'ASCII85Decode' }, { name: 'LZWDecode', earlyChange: 0 }]);
});

test('chargeQpdfDecoding counts what each kind of qpdf run decodes, and nothing it copies', async () => {
  const content = (filter: string, data: Buffer) => stream(`/Filter ${filter}`, data);
  const once = zlibOfRepeated(MiB);
  const pdf = pdfOf([
    '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
    '<< /Type /Pages /Kids [] /Count 0 >>',
    content('/FlateDecode', once), // 3: copied unless recompressed or parsed as content
    stream('/Type /Metadata /Subtype /XML /Filter /FlateDecode', once), // 4: always (the catalog's XMP is written uncompressed)
    content('[/FlateDecode /FlateDecode]', deflateSync(once)), // 5: whenever qpdf writes
    content('/RunLengthDecode', runLengthEncode(Buffer.alloc(MiB))), // 6: never (qpdf copies RunLength)
    stream('/Type /XObject /Subtype /Image /Width 1024 /Height 1024 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode', once), // 7: recompressed only
    stream('/Length1 1048576 /Filter /FlateDecode', once), // 8: a font program, recompressed only
    stream('/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', deflateSync(Buffer.from('9 0 << >>'))), // 9: always
    content('/DCTDecode', Buffer.alloc(1000)), // 10: never
  ]);
  const objStm = 9; // '9 0 << >>'
  const runs: ReadonlyArray<readonly [string, QpdfDecodes, number]> = [
    ['writes nothing (--show-npages)', { writes: 'nothing', contents: false }, MiB + objStm],
    ['linearize', { writes: 'compressed', contents: false }, MiB + objStm + once.length + MiB],
    ['--pages, resources shared', { writes: 'compressed', contents: true }, MiB + objStm + once.length + MiB + MiB],
    ['--recompress-flate, unreferenced resources removed', { writes: 'recompressed', contents: true }, 5 * MiB + objStm + once.length],
  ];
  for (const [name, decodes, expected] of runs) {
    // 1 MiB of room: no run's worst case fits, so each is decoded and counted.
    const budget = openDecodedBudget(64 * MiB);
    assert.ok(budget.reserve(63 * MiB));
    await chargeQpdfDecoding(pdf, decodes, 'pdf');
    assert.equal(spent(budget), expected, name);
  }
  // Past the cap: the member is named.
  const budget = openDecodedBudget(2 * MiB);
  await assert.rejects(chargeQpdfDecoding(pdf, { writes: 'recompressed', contents: true }, 'documents[1].pdf'), DecodedBytesExceeded);
  assert.equal(budget.source, 'documents[1].pdf');
});

test('a dictionary is read forward from its cross-reference offset, as qpdf reads it: strings holding `obj <<` mislead nothing', async () => {
  // Read backwards from `stream`, each of these would end at a fake header
  // inside a string and lose the real /Filter; qpdf reads the real one.
  const bomb = ascii85Encode(zlibOfRepeated(64 * MiB));
  for (const decoy of ['/T (1 0 obj <<)', '/T (1 0 obj << /A\\()', '/T1 (2 0 obj 5 endobj) /T2 (1 0 obj << /A\\()']) {
    const pdf = pdfOf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>', stream(`/Filter [/ASCII85Decode /FlateDecode] ${decoy}`, bomb)]);
    assert.deepEqual(filtersOf([...rawStreams(pdf)][0]!.dict!), [{ name: 'ASCII85Decode' }, { name: 'FlateDecode' }], decoy);
    const budget = openDecodedBudget(8 * MiB);
    await assert.rejects(chargeQpdfDecoding(pdf, { writes: 'compressed', contents: false }, 'pdf_data'), DecodedBytesExceeded, decoy);
    assert.equal(budget.source, 'pdf_data');
  }
});

test('a file whose worst case fits in what the budget has left is not decoded ahead: it is set aside, and the next count has less room', async () => {
  const small = pdfOf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>', stream('/Filter [/FlateDecode /FlateDecode]', deflateSync(zlibOfRepeated(MiB)))]);
  // Worst case: (48 bytes x 1032 + 4096) x 1032 + 4096, about 55 MB.
  const budget = openDecodedBudget(64 * MiB);
  await chargeQpdfDecoding(small, { writes: 'compressed', contents: false }, 'documents[0].pdf');
  assert.equal(spent(budget), 0);
  // The same file again no longer fits beside the first's worst case: now it is counted.
  await chargeQpdfDecoding(small, { writes: 'compressed', contents: false }, 'documents[1].pdf');
  assert.equal(spent(budget), zlibOfRepeated(MiB).length + MiB);
});

test('without a cross-reference section read here, every stream that looks like zlib is counted, layer by layer (qpdf refuses such a file anyway)', async () => {
  // No startxref: qpdf stops at once ("can't find startxref"), having decoded nothing; the count errs the other way.
  const bomb = deflateSync(zlibOfRepeated(4 * MiB));
  const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Filter [/FlateDecode /FlateDecode] >>\nstream\n', 'latin1'), bomb, Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1')]);
  assert.equal([...rawStreams(pdf)][0]?.dict, undefined);
  const budget = openDecodedBudget(64 * MiB);
  await chargeQpdfDecoding(pdf, { writes: 'nothing', contents: false }, 'pdf');
  assert.equal(spent(budget), zlibOfRepeated(4 * MiB).length + 4 * MiB);
});
