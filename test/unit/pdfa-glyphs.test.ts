// The PDF/A font-program rules (rules-glyphs.ts) on files written here: a
// TrueType program (DejaVu Sans, whose widths fontkit measures for the
// test, independently of the validator's own reader) and a bare CFF program
// written byte by byte (test/helpers/cff.ts), each font breaking one rule:
// a glyph the program lacks, a width off by more than 1/1000 em, a code that
// shows .notdef, a subset's CharSet or CIDSet that misses glyphs, a Type 0
// string cut short of a whole code. PDF/UA-1 shares the program reading
// (7.21.4.1-2, 7.21.4.2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import * as fontkit from 'fontkit';
import { openObjects } from '../../workers/seams/pdf-objects.js';
import { validatePdfa, type Standard } from '../../workers/analysis/pdfa/validate.js';
import { checkAccessibility } from '../../workers/analysis/ua/check.js';
import { pdfOfObjects } from '../helpers/raw-pdf.js';
import { cffProgram, SID } from '../helpers/cff.js';

const DEJAVU = readFileSync(join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSans.ttf'));
const dejavu = fontkit.create(DEJAVU) as fontkit.Font;
/** DejaVu's advance of a character in 1/1000 em, as /Widths should say it. */
const advance = (char: string) => Math.round((dejavu.glyphForCodePoint(char.codePointAt(0)!).advanceWidth * 1000) / dejavu.unitsPerEm);

const GLYPH_RULES = /^(6\.3\.[5-7]|6\.2\.11\.[4-8])/;

function stream(dict: string, data: Uint8Array | string): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data);
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${bytes.length} >>\nstream\n`), bytes, Buffer.from('\nendstream')]);
}

/** One page showing `content` with font F1 = object 5 (its descriptor 6, program 7, more objects after). */
function pdf(content: string, fontObjects: readonly Buffer[]): Uint8Array {
  return pdfOfObjects(
    [
      Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
      Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
      Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>'),
      stream('', content),
      ...fontObjects,
    ],
    '/Root 1 0 R /ID [<0102> <0102>]',
  );
}

async function glyphRules(bytes: Uint8Array, standard: Standard): Promise<string[]> {
  const report = validatePdfa(bytes, await openObjects(bytes, undefined), standard);
  return report.failures.map((f) => f.rule).filter((rule) => GLYPH_RULES.test(rule));
}

function trueType(widths: { A: number; B: number }): Buffer[] {
  return [
    Buffer.from(`<< /Type /Font /Subtype /TrueType /BaseFont /DejaVuSans /FirstChar 65 /LastChar 66 /Widths [${widths.A} ${widths.B}] /Encoding /WinAnsiEncoding /FontDescriptor 6 0 R >>`),
    Buffer.from('<< /Type /FontDescriptor /FontName /DejaVuSans /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>'),
    stream(`/Length1 ${DEJAVU.length} /Filter /FlateDecode`, deflateSync(DEJAVU)),
  ];
}

test('TrueType: widths as the program says pass; one off by 3/1000 em fails 6.2.11.5-1 (part 1: 6.3.6-1); within 1 passes', async () => {
  const right = { A: advance('A'), B: advance('B') };
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (AB) Tj ET', trueType(right)), 'pdfa-2b'), []);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (AB) Tj ET', trueType({ ...right, B: right.B + 1 })), 'pdfa-2b'), []);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (AB) Tj ET', trueType({ ...right, A: right.A + 3 })), 'pdfa-2b'), ['6.2.11.5-1']);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (AB) Tj ET', trueType({ ...right, A: right.A + 3 })), 'pdfa-1b'), ['6.3.6-1']);
  // A code not shown is not checked.
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (B) Tj ET', trueType({ ...right, A: right.A + 3 })), 'pdfa-2b'), []);
});

test('TrueType: a code WinAnsi leaves unnamed shows .notdef: 6.2.11.8-1 in any rendering mode, 6.2.11.4.1-2 only when rendered', async () => {
  const right = { A: advance('A'), B: advance('B') };
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf <41 00> Tj ET', trueType(right)), 'pdfa-2b'), ['6.2.11.4.1-2', '6.2.11.8-1']);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf 3 Tr <00> Tj ET', trueType(right)), 'pdfa-2b'), ['6.2.11.8-1']);
  // Part 1 has no .notdef rule.
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf <00> Tj ET', trueType(right)), 'pdfa-1b'), ['6.3.5-1']);
});

function type1C(options: { charSet?: string; widthA?: number; name?: string }): Buffer[] {
  const program = cffProgram([{ sid: SID.A, width: 600 }]);
  const charSet = options.charSet === undefined ? '' : ` /CharSet (${options.charSet})`;
  const name = options.name ?? 'ABCDEF+Tiny';
  return [
    Buffer.from(`<< /Type /Font /Subtype /Type1 /BaseFont /${name} /FirstChar 65 /LastChar 66 /Widths [${options.widthA ?? 600} 600] /Encoding /WinAnsiEncoding /FontDescriptor 6 0 R >>`),
    Buffer.from(`<< /Type /FontDescriptor /FontName /${name} /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile3 7 0 R${charSet} >>`),
    stream('/Subtype /Type1C', program),
  ];
}

test('CFF (Type1C): a glyph the program lacks fails 6.2.11.4.1-2 / 6.3.5-1; a width from its charstring checked against /Widths', async () => {
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', type1C({ charSet: '/A' })), 'pdfa-2b'), []);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (AB) Tj ET', type1C({ charSet: '/A' })), 'pdfa-2b'), ['6.2.11.4.1-2']);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (AB) Tj ET', type1C({ charSet: '/A' })), 'pdfa-1b'), ['6.3.5-1']);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', type1C({ charSet: '/A', widthA: 650 })), 'pdfa-2b'), ['6.2.11.5-1']);
});

test('CharSet of a subset Type 1 font: required in part 1 (6.3.5-2), and where present it lists exactly the program\'s glyphs (6.2.11.4.2-1)', async () => {
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', type1C({})), 'pdfa-1b'), ['6.3.5-2']);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', type1C({})), 'pdfa-2b'), []);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', type1C({ charSet: '' })), 'pdfa-2b'), ['6.2.11.4.2-1']);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', type1C({ charSet: '/A/B' })), 'pdfa-1b'), ['6.3.5-2']);
  // Not a subset (no ABCDEF+ tag): no CharSet rule.
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', type1C({ charSet: '', name: 'Tiny' })), 'pdfa-2b'), []);
});

function type0(cidSet: number[] | undefined): Buffer[] {
  const bits = Buffer.alloc(Math.ceil(dejavu.numGlyphs / 8));
  for (const cid of cidSet ?? []) bits[cid >> 3]! |= 0x80 >> (cid & 7);
  return [
    Buffer.from('<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+DejaVuSans /Encoding /Identity-H /DescendantFonts [8 0 R] >>'),
    Buffer.from(`<< /Type /FontDescriptor /FontName /ABCDEF+DejaVuSans /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R${cidSet === undefined ? '' : ' /CIDSet 9 0 R'} >>`),
    stream(`/Length1 ${DEJAVU.length} /Filter /FlateDecode`, deflateSync(DEJAVU)),
    Buffer.from(`<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+DejaVuSans /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /CIDToGIDMap /Identity /DW ${advance('A')} /FontDescriptor 6 0 R >>`),
    stream('', bits),
  ];
}

test('Type 0 over a CIDFontType2: a string cut short of a whole 2-byte code fails 6.2.11.4.1-2; CIDSet must list every CID of the program in part 2, and be present in part 1', async () => {
  const gidA = dejavu.glyphForCodePoint(65).id;
  const code = `<${gidA.toString(16).padStart(4, '0')}>`;
  const all = Array.from({ length: dejavu.numGlyphs }, (_, i) => i);
  assert.deepEqual(await glyphRules(pdf(`BT /F1 12 Tf ${code} Tj ET`, type0(all)), 'pdfa-2b'), []);
  assert.deepEqual(await glyphRules(pdf(`BT /F1 12 Tf ${code} Tj (#) Tj ET`, type0(all)), 'pdfa-2b'), ['6.2.11.4.1-2']);
  // Only the CIDs the page uses: veraPDF rejects it in part 2; in part 1 it is enough.
  assert.deepEqual(await glyphRules(pdf(`BT /F1 12 Tf ${code} Tj ET`, type0([gidA])), 'pdfa-2b'), ['6.2.11.4.2-2']);
  assert.deepEqual(await glyphRules(pdf(`BT /F1 12 Tf ${code} Tj ET`, type0([gidA])), 'pdfa-1b'), []);
  assert.deepEqual(await glyphRules(pdf(`BT /F1 12 Tf ${code} Tj ET`, type0([])), 'pdfa-1b'), ['6.3.5-3']);
  assert.deepEqual(await glyphRules(pdf(`BT /F1 12 Tf ${code} Tj ET`, type0(undefined)), 'pdfa-1b'), ['6.3.5-3']);
});

test('PDF/UA-1 reads the same programs: a glyph the program lacks (7.21.4.1-2), a CharSet (7.21.4.2-1) or CIDSet (7.21.4.2-2) that misses glyphs', async () => {
  const ua = async (bytes: Uint8Array) => (await checkAccessibility(bytes, undefined)).failures.map((f) => f.rule).filter((rule) => rule.startsWith('7.21.4'));
  assert.deepEqual(await ua(pdf('BT /F1 12 Tf (A) Tj ET', type1C({ charSet: '/A' }))), []);
  assert.deepEqual(await ua(pdf('BT /F1 12 Tf (AB) Tj ET', type1C({ charSet: '/A' }))), ['7.21.4.1-2']);
  assert.deepEqual(await ua(pdf('BT /F1 12 Tf (A) Tj ET', type1C({ charSet: '/A/C' }))), ['7.21.4.2-1']);
  const gidA = dejavu.glyphForCodePoint(65).id;
  const code = `<${gidA.toString(16).padStart(4, '0')}>`;
  assert.deepEqual(await ua(pdf(`BT /F1 12 Tf ${code} Tj ET`, type0([gidA]))), ['7.21.4.2-2']);
  assert.deepEqual(await ua(pdf(`BT /F1 12 Tf ${code} Tj ET`, type0(undefined))), []);
});

test('a /FontFile2 that is no stream embeds nothing: 6.2.11.4.1-1', async () => {
  const [font, descriptor] = trueType({ A: advance('A'), B: advance('B') });
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', [font!, descriptor!, Buffer.from('<< /Length1 0 >>')]), 'pdfa-2b'), ['6.2.11.4.1-1']);
});

test('an embedded CMap: the CIDFont\'s Supplement above the CMap\'s fails 6.2.11.3.1-1, a usecmap of a CMap not predefined 6.2.11.3.3-3', async () => {
  const cmapText = (use: string) => `/CIDInit /ProcSet findresource begin 12 dict begin begincmap ${use}\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n1 begincidrange <0000> <FFFF> 0 endcidrange\nendcmap end end`;
  const objects = (supplement: number, use: string): Buffer[] => {
    const [, descriptor, program, cidFont] = type0(undefined);
    return [
      Buffer.from('<< /Type /Font /Subtype /Type0 /BaseFont /DejaVuSans /Encoding 10 0 R /DescendantFonts [8 0 R] >>'),
      descriptor!,
      program!,
      Buffer.from(cidFont!.toString('latin1').replace('/Supplement 0', `/Supplement ${supplement}`).replace('/Ordering (Identity)', '/Ordering (Custom)').replace('ABCDEF+', '')),
      Buffer.from('<< >>'),
      stream('/Type /CMap /CMapName /Custom /CIDSystemInfo << /Registry (Adobe) /Ordering (Custom) /Supplement 1 >>', cmapText(use)),
    ];
  };
  const composite = async (bytes: Uint8Array) => validatePdfa(bytes, await openObjects(bytes, undefined), 'pdfa-2b').failures.map((f) => f.rule).filter((rule) => rule.startsWith('6.2.11.3'));
  assert.deepEqual(await composite(pdf('BT /F1 12 Tf <0024> Tj ET', objects(1, ''))), []);
  assert.deepEqual(await composite(pdf('BT /F1 12 Tf <0024> Tj ET', objects(2, ''))), ['6.2.11.3.1-1']);
  assert.deepEqual(await composite(pdf('BT /F1 12 Tf <0024> Tj ET', objects(1, '/Private-CMap usecmap'))), ['6.2.11.3.3-3']);
  assert.deepEqual(await composite(pdf('BT /F1 12 Tf <0024> Tj ET', objects(1, '/Identity-H usecmap'))), []);
});

test('a non-symbolic TrueType font\'s Differences: names of the Adobe Glyph List pass in part 2, others fail 6.2.11.6-2; part 1 allows none (6.3.7-1)', async () => {
  const withDifferences = (names: string): Buffer[] => {
    const [font, ...rest] = trueType({ A: advance('A'), B: advance('B') });
    return [Buffer.from(font!.toString('latin1').replace('/Encoding /WinAnsiEncoding', `/Encoding << /BaseEncoding /WinAnsiEncoding /Differences [65 ${names}] >>`)), ...rest];
  };
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', withDifferences('/A')), 'pdfa-2b'), []);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', withDifferences('/A.alt')), 'pdfa-2b'), ['6.2.11.6-2']);
  assert.deepEqual(await glyphRules(pdf('BT /F1 12 Tf (A) Tj ET', withDifferences('/A')), 'pdfa-1b'), ['6.3.7-1']);
});
