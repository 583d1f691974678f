// The analysis base: the object view (seams/pdf-objects.ts), the content
// stream lexer, the XMP reader and the rule engine, on a small file written
// here byte by byte so every value it holds is known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { openObjects } from '../../workers/seams/pdf-objects.js';
import { contentOperations } from '../../workers/untrusted/content-stream.js';
import { PdfDict, PdfName, PdfRef, PdfString } from '../../workers/untrusted/pdf-values.js';
import { parseXmp, XMP_NAMESPACES } from '../../workers/analysis/xmp.js';
import { runRules, type Rule } from '../../workers/analysis/rules.js';
import { pdfOfObjects } from '../helpers/raw-pdf.js';

const XMP = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:id="http://www.aiim.org/pdfa/ns/id/" id:part="2" id:conformance="B"/>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title><rdf:Alt><rdf:li xml:lang="de">Titel</rdf:li><rdf:li xml:lang="x-default">Title</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>Ada</rdf:li><rdf:li>Grace</rdf:li></rdf:Seq></dc:creator>
</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;

const CONTENT = '/Span <</MCID 0 /ActualText (A\\(b\\)) >> BDC BT /F1 12 Tf 72 700 Td [(Hi) -250 <0041>] TJ ET EMC\n' + '/Artifact BMC q 0 0 1 rg 10 10 50 50 re f Q EMC BI /W 2 /H 1 /CS /G /BPC 8 ID \x00\x45 EI Q';

/** A two-page file: the page tree inherits MediaBox and Resources, page 1's content is Flate-compressed, and the catalog has XMP. */
function samplePdf(): Uint8Array {
  const compressed = deflateSync(Buffer.from(CONTENT, 'latin1'));
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R /Lang (en-GB) /MarkInfo << /Marked true >> >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 595 842] /Resources << /Font << /F1 7 0 R >> >> >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate 90 >>'),
    Buffer.concat([Buffer.from(`<< /Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`), compressed, Buffer.from('\nendstream')]),
    Buffer.concat([Buffer.from(`<< /Type /Metadata /Subtype /XML /Length ${Buffer.byteLength(XMP)} >>\nstream\n`), Buffer.from(XMP), Buffer.from('\nendstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica#2DBold /Name (caf\\351) /Title <FEFF00480069> >>'),
  ];
  return pdfOfObjects(objects, '/Root 1 0 R /ID [<0102> <0102>]');
}

test('the object view resolves references, decodes streams and walks the page tree with inheritance', async () => {
  const pdf = await openObjects(samplePdf(), undefined);
  assert.equal(pdf.version, '1.7');
  assert.equal(pdf.encrypted, false);
  assert.equal(pdf.text(pdf.catalog?.get('Lang')), 'en-GB');
  assert.equal(pdf.dict(pdf.catalog?.get('MarkInfo'))?.get('Marked'), true);
  assert.equal(pdf.refs().length, 7);
  assert.equal(pdf.pages.length, 2);
  assert.deepEqual(pdf.pages[0]!.inherited('MediaBox'), [0, 0, 595, 842]);
  assert.deepEqual(pdf.pages[1]!.inherited('MediaBox'), [0, 0, 612, 792]);
  assert.equal(pdf.pages[1]!.inherited('Rotate'), 90);
  const font = pdf.dict(pdf.dict(pdf.dict(pdf.pages[1]!.inherited('Resources'))?.get('Font'))?.get('F1'));
  assert.ok(font instanceof PdfDict);
  assert.deepEqual(font.ref, new PdfRef(7, 0));
  assert.equal(font.name('BaseFont'), 'Helvetica-Bold', 'a #2D escape in a name is decoded');
  assert.equal(pdf.text(font.get('Name')), 'café', 'a literal string is PDFDocEncoding');
  assert.equal(pdf.text(font.get('Title')), 'Hi', 'a hex string with a BOM is UTF-16');
  const content = pdf.stream(pdf.pages[0]!.dict.get('Contents'));
  assert.equal(Buffer.from(content!.decoded()!).toString('latin1'), CONTENT);
  assert.equal(pdf.resolve(new PdfRef(99, 0)), undefined, 'a missing object resolves to nothing');
});

test('the content stream lexer gives operators with their operands, offsets and inline images', () => {
  const operations = [...contentOperations(Buffer.from(CONTENT, 'latin1'))];
  assert.deepEqual(
    operations.map((op) => op.operator),
    ['BDC', 'BT', 'Tf', 'Td', 'TJ', 'ET', 'EMC', 'BMC', 'q', 'rg', 're', 'f', 'Q', 'EMC', 'BI', 'Q'],
  );
  const bdc = operations[0]!;
  assert.deepEqual(bdc.operands[0], new PdfName('Span'));
  const properties = bdc.operands[1] as PdfDict;
  assert.equal(properties.get('MCID'), 0);
  assert.equal((properties.get('ActualText') as PdfString).text, 'A(b)');
  const tj = operations[4]!;
  const array = tj.operands[0] as unknown[];
  assert.equal((array[0] as PdfString).text, 'Hi');
  assert.equal(array[1], -250);
  assert.deepEqual([...(array[2] as PdfString).bytes], [0x00, 0x41]);
  assert.equal(CONTENT.slice(tj.start, tj.end), '[(Hi) -250 <0041>] TJ');
  const image = operations[14]!;
  assert.equal((image.operands[0] as PdfDict).get('W'), 2);
  assert.deepEqual([...image.inlineData!], [0x00, 0x45]);
});

test('the lexer survives hostile streams without throwing', () => {
  const hostile = ['['.repeat(10_000) + ' Tj', '<< /A << /B (unterminated', ') ] >> } { Tj', 'BI /W 1 ID no end', '(\\'];
  for (const text of hostile) assert.doesNotThrow(() => [...contentOperations(Buffer.from(text, 'latin1'))], text.slice(0, 20));
});

test('XMP properties are found by namespace whatever their prefix, in both RDF spellings', () => {
  const packet = parseXmp(Buffer.from(XMP));
  assert.ok(packet.wellFormed);
  assert.equal(packet.get(XMP_NAMESPACES.pdfaid, 'part')?.text, '2');
  assert.equal(packet.get(XMP_NAMESPACES.pdfaid, 'part')?.form, 'attribute');
  assert.equal(packet.get(XMP_NAMESPACES.dc, 'title')?.text, 'Title', 'an Alt gives its x-default');
  assert.deepEqual(packet.get(XMP_NAMESPACES.dc, 'creator')?.items, ['Ada', 'Grace']);
  const broken = parseXmp(Buffer.from('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF>'));
  assert.equal(broken.wellFormed, false);
});

test('the rule engine folds violations into one failure per rule with pages and a sample', () => {
  const rules: Rule<number[]>[] = [
    { id: '7.1-3', matterhorn: '01-005', description: 'odd pages', check: (pages) => pages.filter((p) => p % 2 === 1).map((page) => ({ page, sample: `page ${page}` })) },
    { id: '7.2-1', description: 'never fails', check: () => [] },
  ];
  const report = runRules(rules, [3, 1, 2, 5, 3]);
  assert.equal(report.compliant, false);
  assert.deepEqual(report.summary, { rules_checked: 2, passed: 1, failed: 1 });
  assert.deepEqual(report.failures, [{ rule: '7.1-3', matterhorn: '01-005', description: 'odd pages', count: 4, pages: [1, 3, 5], sample: 'page 3' }]);
  assert.equal(runRules(rules, [2, 4]).compliant, true);
});
