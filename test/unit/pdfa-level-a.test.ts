// PDF/A-2 level A (ISO 19005-2 6.7 and 6.2.11.7.3) on small tagged files
// written byte by byte: a compliant one, then the same file with one thing
// broken per test, each named by the rule veraPDF's PDF/A-2A profile
// reports. The same files at level U pass: the rules run at level A only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openObjects } from '../../workers/seams/pdf-objects.js';
import { validatePdfa, type Standard } from '../../workers/analysis/pdfa/validate.js';
import { pdfOfObjects } from '../helpers/raw-pdf.js';

interface Options {
  readonly conformance?: string;
  /** The catalog's /MarkInfo entry, written as is; null leaves it out. */
  readonly markInfo?: string | null;
  readonly structTreeRoot?: boolean;
  /** The paragraph element's /S. */
  readonly paragraphType?: string;
  readonly roleMap?: string;
  readonly lang?: string;
  /** Content after the paragraph's path (a text line, say). */
  readonly content?: string;
  readonly resources?: string;
}

function xmp(conformance: string): string {
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="2" pdfaid:conformance="${conformance}"/>
</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
}

/** A one-page tagged PDF/A-2a file: Document > P owning MCID 0, a path that paints nothing (so no colour rule applies). */
function pdf(options: Options = {}): Uint8Array {
  const metadata = Buffer.from(xmp(options.conformance ?? 'A'), 'utf8');
  const content = Buffer.from(`/P <</MCID 0>> BDC 0 0 10 10 re n EMC\n${options.content ?? ''}`, 'latin1');
  const markInfo = options.markInfo === undefined ? '/MarkInfo << /Marked true >>' : options.markInfo === null ? '' : `/MarkInfo ${options.markInfo}`;
  const tree = options.structTreeRoot === false ? '' : '/StructTreeRoot 7 0 R';
  const objects: Buffer[] = [
    Buffer.from(`<< /Type /Catalog /Pages 2 0 R /Metadata 5 0 R ${markInfo} ${tree} /Lang (${options.lang ?? 'en-GB'}) >>`),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /StructParents 0 /Resources << ${options.resources ?? ''} >> >>`),
    Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from('\nendstream')]),
    Buffer.concat([Buffer.from(`<< /Type /Metadata /Subtype /XML /Length ${metadata.length} >>\nstream\n`), metadata, Buffer.from('\nendstream')]),
    Buffer.from('<< /Producer (test) >>'),
    Buffer.from(`<< /Type /StructTreeRoot /K 8 0 R /ParentTree << /Nums [0 [9 0 R]] >>${options.roleMap === undefined ? '' : ` /RoleMap << ${options.roleMap} >>`} >>`),
    Buffer.from('<< /Type /StructElem /S /Document /P 7 0 R /K [9 0 R] >>'),
    Buffer.from(`<< /Type /StructElem /S /${options.paragraphType ?? 'P'} /P 8 0 R /Pg 3 0 R /K 0 >>`),
    // A simple font whose ToUnicode maps code 65 (A) to U+E000, in the Private Use Area.
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode 11 0 R >>'),
    cmap('<41> <E000>'),
  ];
  return pdfOfObjects(objects, '/Root 1 0 R /Info 6 0 R /ID [<0102> <0102>]');
}

function cmap(mapping: string): Buffer {
  const program = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Test def
1 begincodespacerange <00> <FF> endcodespacerange
1 beginbfchar ${mapping} endbfchar
endcmap CMapName currentdict /CMap defineresource pop end end`;
  return Buffer.from(`<< /Length ${program.length} >>\nstream\n${program}\nendstream`);
}

async function check(bytes: Uint8Array, standard?: Standard) {
  return validatePdfa(bytes, await openObjects(bytes, undefined), standard);
}

async function rules(bytes: Uint8Array, standard?: Standard): Promise<string[]> {
  return (await check(bytes, standard)).failures.map((f) => f.rule);
}

test('a tagged file claiming PDF/A-2a is checked as pdfa-2a and is compliant', async () => {
  const report = await check(pdf());
  assert.equal(report.claimed, 'pdfa-2a');
  assert.equal(report.standard, 'pdfa-2a');
  assert.deepEqual(report.failures, []);
  // 2u's rules and the seven of level A.
  const levelU = await check(pdf({ conformance: 'U' }));
  assert.equal(levelU.standard, 'pdfa-2u');
  assert.equal(report.summary.rules_checked, levelU.summary.rules_checked + 7);
});

test('MarkInfo missing or /Marked false: 6.7.2.2-1', async () => {
  assert.deepEqual(await rules(pdf({ markInfo: null })), ['6.7.2.2-1']);
  assert.deepEqual(await rules(pdf({ markInfo: '<< /Marked false >>' })), ['6.7.2.2-1']);
});

test('no StructTreeRoot: 6.7.3.3-1', async () => {
  assert.deepEqual(await rules(pdf({ structTreeRoot: false })), ['6.7.3.3-1']);
});

test('structure types: unmapped (6.7.3.4-1), a circular mapping (6.7.3.4-2), a standard type remapped (6.7.3.4-3); mapped to a standard type is fine', async () => {
  assert.deepEqual(await rules(pdf({ paragraphType: 'Para' })), ['6.7.3.4-1']);
  assert.deepEqual(await rules(pdf({ paragraphType: 'Para', roleMap: '/Para /Body /Body /Para' })), ['6.7.3.4-2']);
  assert.deepEqual(await rules(pdf({ roleMap: '/P /Span' })), ['6.7.3.4-3']);
  assert.deepEqual(await rules(pdf({ paragraphType: 'Para', roleMap: '/Para /P' })), []);
});

test('a Lang that is no language identifier: 6.7.4-1 (the empty string is one: language unknown)', async () => {
  assert.deepEqual(await rules(pdf({ lang: 'en_GB' })), ['6.7.4-1']);
  assert.deepEqual(await rules(pdf({ lang: '' })), []);
  assert.deepEqual(await rules(pdf({ content: '/Span <</Lang (not a tag)>> BDC 0 0 5 5 re n EMC' })), ['6.7.4-1']);
});

test('text mapped to the Private Use Area needs ActualText: 6.2.11.7.3-1, also in rendering mode 3; not with a Span /ActualText around it', async () => {
  const resources = '/Font << /F1 10 0 R >>';
  // The font is not embedded (6.2.11.4.1-1 and its glyph rules also fail): only the level A rule matters here.
  const pua = (bytes: Uint8Array) => rules(bytes).then((ids) => ids.filter((id) => id === '6.2.11.7.3-1'));
  assert.deepEqual(await pua(pdf({ resources, content: '/Artifact BMC BT /F1 12 Tf 10 10 Td (A) Tj ET EMC' })), ['6.2.11.7.3-1']);
  assert.deepEqual(await pua(pdf({ resources, content: '/Artifact BMC BT 3 Tr /F1 12 Tf 10 10 Td (A) Tj ET EMC' })), ['6.2.11.7.3-1']);
  assert.deepEqual(await pua(pdf({ resources, content: '/Span <</ActualText (\\376\\377\\000A)>> BDC BT /F1 12 Tf 10 10 Td (A) Tj ET EMC' })), []);
  assert.deepEqual(await pua(pdf({ resources, content: '/Artifact BMC BT /F1 12 Tf 10 10 Td (B) Tj ET EMC' })), []);
  const report = await check(pdf({ resources, content: '/Artifact BMC BT /F1 12 Tf 10 10 Td (A) Tj ET EMC' }));
  assert.match(report.failures.find((f) => f.rule === '6.2.11.7.3-1')?.sample ?? '', /U\+E000/);
});

test('pdfaid:conformance other than A checked as 2a: 6.6.4-3; the level A rules do not run at 2u or 2b', async () => {
  assert.deepEqual(await rules(pdf({ conformance: 'U' }), 'pdfa-2a'), ['6.6.4-3']);
  const untagged = pdf({ conformance: 'U', markInfo: null, structTreeRoot: false, lang: 'en_GB' });
  assert.deepEqual(await rules(untagged), []);
  assert.deepEqual(await rules(untagged, 'pdfa-2b'), []);
  assert.deepEqual(await rules(untagged, 'pdfa-2a'), ['6.6.4-3', '6.7.2.2-1', '6.7.3.3-1', '6.7.4-1']);
});
