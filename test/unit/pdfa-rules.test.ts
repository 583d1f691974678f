// The PDF/A rules on small files written here byte by byte, so each test
// breaks exactly one thing and names the rule veraPDF would report: the
// file syntax read from the bytes (cos-scan.ts), the XMP value types and
// extension schemas, device colour without an output intent, and resources
// that are checked only when a content stream uses them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openObjects } from '../../workers/seams/pdf-objects.js';
import { validatePdfa } from '../../workers/analysis/pdfa/validate.js';
import { pdfOfObjects } from '../helpers/raw-pdf.js';

const RDF = 'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"';

function xmp(extra = ''): string {
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ${RDF}>
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="2" pdfaid:conformance="B"/>
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2026-01-05T10:00:00Z"/>
${extra}
</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
}

interface Options {
  readonly metadata?: string;
  readonly content?: string;
  readonly resources?: string;
  /** Added to the stream's declared Length. */
  readonly lengthError?: number;
  readonly info?: string;
  readonly afterEof?: string;
}

/** A one-page PDF/A-2b file; each option breaks (or changes) one thing. */
function pdf(options: Options = {}): Uint8Array {
  const metadata = Buffer.from(options.metadata ?? xmp(), 'utf8');
  const content = Buffer.from(options.content ?? '', 'latin1');
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R /Metadata 5 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << ${options.resources ?? ''} >> >>`),
    Buffer.concat([Buffer.from(`<< /Length ${content.length + (options.lengthError ?? 0)} >>\nstream\n`), content, Buffer.from('\nendstream')]),
    Buffer.concat([Buffer.from(`<< /Type /Metadata /Subtype /XML /Length ${metadata.length} >>\nstream\n`), metadata, Buffer.from('\nendstream')]),
    Buffer.from(options.info ?? '<< /Producer (test) >>'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  return pdfOfObjects(objects, '/Root 1 0 R /Info 6 0 R /ID [<0102> <0102>]', options.afterEof);
}

async function rules(bytes: Uint8Array): Promise<string[]> {
  const report = validatePdfa(bytes, await openObjects(bytes, undefined), undefined);
  assert.equal(report.standard, 'pdfa-2b');
  assert.equal(report.claimed, 'pdfa-2b');
  return report.failures.map((f) => f.rule);
}

test('the minimal file is PDF/A-2b compliant, and an unused unembedded font in its resources breaks nothing', async () => {
  assert.deepEqual(await rules(pdf()), []);
  assert.deepEqual(await rules(pdf({ resources: '/Font << /F1 7 0 R >>' })), []);
});

test('the same font used by Tf is checked: not embedded, 6.2.11.4.1-1', async () => {
  assert.deepEqual(await rules(pdf({ resources: '/Font << /F1 7 0 R >>', content: 'BT /F1 12 Tf 10 10 Td (x) Tj ET' })).then((r) => r.filter((id) => id.startsWith('6.2.11'))), ['6.2.11.4.1-1']);
});

test('file syntax: an odd hex string (6.1.6-1), a wrong stream Length (6.1.7.1-1), data after %%EOF (6.1.3-3)', async () => {
  assert.deepEqual(await rules(pdf({ info: '<< /Producer <4142434> >>' })), ['6.1.6-1']);
  assert.deepEqual(await rules(pdf({ content: '0 0 m', lengthError: 3 })), ['6.1.7.1-1']);
  assert.deepEqual(await rules(pdf({ afterEof: 'junk after the end' })), ['6.1.3-3']);
});

test('DeviceRGB painting without an output intent: 6.2.4.3-2 on page 1; the initial DeviceGray fill: 6.2.4.3-4', async () => {
  assert.deepEqual(await rules(pdf({ content: '1 0 0 rg 0 0 10 10 re f' })), ['6.2.4.3-2']);
  assert.deepEqual(await rules(pdf({ content: '0 0 10 10 re f' })), ['6.2.4.3-4']);
});

test('XMP: a value not of its type (6.6.2.3.1-2), a property no schema defines (6.6.2.3.1-1), defined by an extension schema (compliant)', async () => {
  const wrongDate = xmp().replace('2026-01-05T10:00:00Z', 'yesterday');
  assert.deepEqual(await rules(pdf({ metadata: wrongDate })), ['6.6.2.3.1-2']);
  const custom = '<rdf:Description rdf:about="" xmlns:acme="http://acme.example/ns/" acme:batch="42"/>';
  assert.deepEqual(await rules(pdf({ metadata: xmp(custom) })), ['6.6.2.3.1-1']);
  const schema = `<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">
<pdfaSchema:schema>Acme batches</pdfaSchema:schema><pdfaSchema:namespaceURI>http://acme.example/ns/</pdfaSchema:namespaceURI><pdfaSchema:prefix>acme</pdfaSchema:prefix>
<pdfaSchema:property><rdf:Seq><rdf:li rdf:parseType="Resource">
<pdfaProperty:name>batch</pdfaProperty:name><pdfaProperty:valueType>Integer</pdfaProperty:valueType><pdfaProperty:category>internal</pdfaProperty:category><pdfaProperty:description>Batch number</pdfaProperty:description>
</rdf:li></rdf:Seq></pdfaSchema:property>
</rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>`;
  assert.deepEqual(await rules(pdf({ metadata: xmp(custom + schema) })), []);
  assert.deepEqual(await rules(pdf({ metadata: xmp(custom.replace('"42"', '"forty-two"') + schema) })), ['6.6.2.3.1-2']);
});

test('the xpacket header with a bytes attribute: 6.6.2.1-2', async () => {
  assert.deepEqual(await rules(pdf({ metadata: xmp().replace('<?xpacket begin=', '<?xpacket bytes="900" begin=') })), ['6.6.2.1-2']);
});

test('part 1: a rule ISO 19005-1 states in two clauses names both (6.7.9-2 also 6.7.2; 6.7.3-2 also 6.1.5); an Info Title that is no string fails 6.7.3-2', async () => {
  const custom = '<rdf:Description rdf:about="" xmlns:acme="http://acme.example/ns/" acme:batch="42"/>';
  const bytes = pdf({ metadata: xmp(custom).replace('pdfaid:part="2"', 'pdfaid:part="1"'), info: '<< /Producer (test) /Title 1 0 R >>' });
  const report = validatePdfa(bytes, await openObjects(bytes, undefined), undefined);
  assert.equal(report.standard, 'pdfa-1b');
  const byRule = new Map(report.failures.map((f) => [f.rule, f]));
  assert.deepEqual(byRule.get('6.7.9-2')?.clauses, ['6.7.9', '6.7.2']);
  assert.deepEqual(byRule.get('6.7.3-2')?.clauses, ['6.7.3', '6.1.5']);
  assert.equal(byRule.get('6.7.3-2')?.sample, 'Info Title is not a string');
  // Part 2 numbers these rules in one clause each: no list.
  const part2 = validatePdfa(bytes, await openObjects(bytes, undefined), 'pdfa-2b');
  assert.ok(part2.failures.some((f) => f.rule === '6.6.2.3.1-1'));
  assert.ok(part2.failures.every((f) => f.clauses === undefined));
});

test('part 1: a real beyond 32767 in a content stream fails 6.1.12-2, written as 60000.0 too; the integer 60000 does not', async () => {
  const limits = async (content: string) => {
    const bytes = pdf({ content });
    return validatePdfa(bytes, await openObjects(bytes, undefined), 'pdfa-1b').failures.filter((f) => f.rule.startsWith('6.1.12')).map((f) => [f.rule, f.sample]);
  };
  assert.deepEqual(await limits('BT 60000.0 Tz ET'), [['6.1.12-2', '60000 in a content stream']]);
  assert.deepEqual(await limits('BT -40000.5 0 Td ET'), [['6.1.12-2', '-40000.5 in a content stream']]);
  assert.deepEqual(await limits('BT 60000 Tz 100.5 Tz ET'), []);
});
