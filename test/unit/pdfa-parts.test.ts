// compliance-check's levels of parts 1 and 3 on small files written byte by
// byte: PDF/A-1a (veraPDF's PDF/A-1A rules: 6.3.8-1, 6.8.2.2-1, 6.8.3.3-1,
// 6.8.3.4-1/-2, 6.8.4-1 and 6.7.11-3 asking A), the claims 1a, 3u and 3a
// checked as such, and PDF/A-3's embedded-file rules (6.8-1 to -4). Each
// case breaks one thing and looks only at the rules it is about, so the
// rest of what these small files lack (an output intent, Info agreeing with
// XMP) stays out of the way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validatePdfa, type Standard } from '../../workers/analysis/pdfa/validate.js';
import { openObjects } from '../../workers/seams/pdf-objects.js';
import { pdfOfObjects } from '../helpers/raw-pdf.js';

interface Options {
  readonly part?: number;
  readonly conformance?: string;
  readonly markInfo?: boolean;
  readonly structTreeRoot?: boolean;
  /** The paragraph element's /S. */
  readonly paragraphType?: string;
  readonly roleMap?: string;
  readonly lang?: string;
  /** A font with a ToUnicode map (object 11), or one whose codes nothing maps to Unicode. */
  readonly toUnicode?: boolean;
  /** The embedded file's stream dictionary entries beyond /Type and /Length. */
  readonly embeddedFile?: string;
  /** The catalog's /AF entry, written as is; '' leaves it out. */
  readonly af?: string;
}

function stream(dict: string, data: string): Buffer {
  return Buffer.from(`<< ${dict} /Length ${Buffer.byteLength(data, 'latin1')} >>\nstream\n${data}\nendstream`, 'latin1');
}

/** One page of tagged text in a simple font, claiming PDF/A-`part``conformance`, with an embedded file when `embeddedFile` is given. */
function pdf(options: Options = {}): Uint8Array {
  const xmp = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="${options.part ?? 1}" pdfaid:conformance="${options.conformance ?? 'A'}"/>
</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
  const markInfo = options.markInfo === false ? '' : '/MarkInfo << /Marked true >>';
  const tree = options.structTreeRoot === false ? '' : '/StructTreeRoot 7 0 R';
  const files = options.embeddedFile === undefined ? '' : `/Names << /EmbeddedFiles << /Names [(data.xml) 12 0 R] >> >> ${options.af ?? '/AF [12 0 R]'}`;
  const objects: Buffer[] = [
    Buffer.from(`<< /Type /Catalog /Pages 2 0 R /Metadata 5 0 R ${markInfo} ${tree} /Lang (${options.lang ?? 'en-GB'}) ${files} >>`),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /StructParents 0 /Resources << /Font << /F1 10 0 R >> >> >>'),
    stream('', '/P <</MCID 0>> BDC BT /F1 12 Tf 10 10 Td (A) Tj ET EMC'),
    stream('/Type /Metadata /Subtype /XML', xmp),
    Buffer.from('<< /Producer (test) >>'),
    Buffer.from(`<< /Type /StructTreeRoot /K 8 0 R /ParentTree << /Nums [0 [9 0 R]] >>${options.roleMap === undefined ? '' : ` /RoleMap << ${options.roleMap} >>`} >>`),
    Buffer.from('<< /Type /StructElem /S /Document /P 7 0 R /K [9 0 R] >>'),
    Buffer.from(`<< /Type /StructElem /S /${options.paragraphType ?? 'P'} /P 8 0 R /Pg 3 0 R /K 0 >>`),
    // Without ToUnicode, a Type 3 font with no encoding: nothing maps its codes to Unicode (a Type 1 font's standard encoding would).
    Buffer.from(
      options.toUnicode === false
        ? '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << >> /Resources << >> /FirstChar 65 /LastChar 65 /Widths [667] >>'
        : '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 65 /LastChar 65 /Widths [667] /ToUnicode 11 0 R >>',
    ),
    stream('', '/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Test def\n1 begincodespacerange <00> <FF> endcodespacerange\n1 beginbfchar <41> <0041> endbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end'),
    Buffer.from('<< /Type /Filespec /F (data.xml) /UF (data.xml) /EF << /F 13 0 R >> /AFRelationship /Data >>'),
    stream(`/Type /EmbeddedFile ${options.embeddedFile ?? ''}`, '<a/>'),
  ];
  return pdfOfObjects(objects, '/Root 1 0 R /Info 6 0 R /ID [<0102> <0102>]');
}

/** The rules among `about` that the file fails at `standard` (or at its claim). */
async function failing(bytes: Uint8Array, about: readonly string[], standard?: Standard): Promise<string[]> {
  const report = await validatePdfa(bytes, await openObjects(bytes, undefined), standard);
  return report.failures.map((f) => f.rule).filter((rule) => about.includes(rule));
}

const LEVEL_A_1 = ['6.3.8-1', '6.7.11-3', '6.8.2.2-1', '6.8.3.3-1', '6.8.3.4-1', '6.8.3.4-2', '6.8.4-1'];

test('a file claiming PDF/A-1a is checked as pdfa-1a, and passes every level A rule of part 1', async () => {
  const bytes = pdf();
  const report = validatePdfa(bytes, await openObjects(bytes, undefined), undefined);
  assert.deepEqual([report.claimed, report.standard], ['pdfa-1a', 'pdfa-1a']);
  assert.deepEqual(await failing(bytes, LEVEL_A_1), []);
  // 1b's rules and the six of 1A (6.7.11-3 is 1b's rule, asking A here).
  const levelB = validatePdfa(bytes, await openObjects(bytes, undefined), 'pdfa-1b');
  assert.equal(report.summary.rules_checked, levelB.summary.rules_checked + 6);
});

test('PDF/A-1a, one thing broken at a time: each reported under veraPDF\'s PDF/A-1A id', async () => {
  assert.deepEqual(await failing(pdf({ markInfo: false }), LEVEL_A_1), ['6.8.2.2-1']);
  assert.deepEqual(await failing(pdf({ structTreeRoot: false }), LEVEL_A_1), ['6.8.3.3-1']);
  assert.deepEqual(await failing(pdf({ paragraphType: 'Para' }), LEVEL_A_1), ['6.8.3.4-1']);
  assert.deepEqual(await failing(pdf({ paragraphType: 'Para', roleMap: '/Para /Body /Body /Para' }), LEVEL_A_1), ['6.8.3.4-2']);
  assert.deepEqual(await failing(pdf({ toUnicode: false }), LEVEL_A_1), ['6.3.8-1']);
  assert.deepEqual(await failing(pdf({ conformance: 'B' }), LEVEL_A_1, 'pdfa-1a'), ['6.7.11-3']);
  // Part 1 has no rule on remapped standard types (2a's 6.7.3.4-3).
  assert.deepEqual(await failing(pdf({ roleMap: '/P /Span' }), [...LEVEL_A_1, '6.7.3.4-3']), []);
});

test('Lang: RFC 1766 (letters only) for PDF/A-1a, RFC 3066 (digits allowed) for PDF/A-2a and 3a', async () => {
  assert.deepEqual(await failing(pdf({ lang: 'es-419' }), LEVEL_A_1), ['6.8.4-1']);
  assert.deepEqual(await failing(pdf({ lang: 'es-419', part: 2 }), ['6.7.4-1']), []);
  assert.deepEqual(await failing(pdf({ lang: 'es-419', part: 3 }), ['6.7.4-1']), []);
  assert.deepEqual(await failing(pdf({ lang: 'en_GB', part: 3 }), ['6.7.4-1']), ['6.7.4-1']);
});

test('level B of part 1 runs none of level A\'s rules; claims of 3u and 3a are checked as pdfa-3u and pdfa-3a', async () => {
  const untagged = pdf({ conformance: 'B', markInfo: false, structTreeRoot: false, toUnicode: false, lang: 'es-419' });
  assert.deepEqual(await failing(untagged, LEVEL_A_1), []);
  for (const conformance of ['U', 'A']) {
    const bytes = pdf({ part: 3, conformance });
    const report = validatePdfa(bytes, await openObjects(bytes, undefined), undefined);
    assert.deepEqual([report.claimed, report.standard], [`pdfa-3${conformance.toLowerCase()}`, `pdfa-3${conformance.toLowerCase()}`]);
  }
  // Level U's Unicode rule runs at 3u, not at 3b.
  assert.deepEqual(await failing(pdf({ part: 3, conformance: 'U', toUnicode: false }), ['6.2.11.7.2-1']), ['6.2.11.7.2-1']);
  assert.deepEqual(await failing(pdf({ part: 3, conformance: 'B', toUnicode: false }), ['6.2.11.7.2-1']), []);
});

const EMBEDDED = ['6.8-1', '6.8-2', '6.8-3', '6.8-4'];

test('PDF/A-3 embedded files: a MIME Subtype (6.8-1) and a listing in an AF array (6.8-4)', async () => {
  assert.deepEqual(await failing(pdf({ part: 3, conformance: 'B', embeddedFile: '/Subtype /text#2Fxml' }), EMBEDDED), []);
  assert.deepEqual(await failing(pdf({ part: 3, conformance: 'B', embeddedFile: '' }), EMBEDDED), ['6.8-1']);
  assert.deepEqual(await failing(pdf({ part: 3, conformance: 'B', embeddedFile: '/Subtype /xml' }), EMBEDDED), ['6.8-1']);
  assert.deepEqual(await failing(pdf({ part: 3, conformance: 'B', embeddedFile: '/Subtype /text#2Fxml', af: '' }), EMBEDDED), ['6.8-4']);
  // Part 2's profile has neither rule.
  assert.deepEqual(await failing(pdf({ part: 2, conformance: 'B', embeddedFile: '', af: '' }), EMBEDDED), []);
});
