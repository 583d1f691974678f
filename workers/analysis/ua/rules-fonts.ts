// PDF/UA-1 rules on fonts (7.21) for the fonts the pages draw text with:
// composite fonts' CIDSystemInfo, CIDToGIDMap and CMaps (7.21.3), embedding
// (7.21.4.1-1), TrueType encodings and cmap subtables (7.21.6), and a
// Unicode value for every code shown (7.21.7), with veraPDF's tests.
import { PdfName, PdfStream, type PdfDict } from '../../untrusted/pdf-values.js';
import type { Violation } from '../rules.js';
import type { UaDocument } from './document.js';
import { fontLabel, type UsedFont } from './fonts.js';
import { uaRule, type UaRule } from './rule.js';
import { charSetListsAll, cidSetListsAll } from '../fonts/glyph-sets.js';
import { cmapSubtables } from '../fonts/truetype-cmaps.js';
import { trueTypeWidths } from '../fonts/truetype-program.js';

/** ISO 32000-1 Table 118: the predefined CMaps a reader knows without embedding. */
const PREDEFINED_CMAPS = /^(Identity-[HV]|GB-EUC-[HV]|GBpc-EUC-[HV]|GBK-EUC-[HV]|GBKp-EUC-[HV]|GBK2K-[HV]|UniGB-UCS2-[HV]|UniGB-UTF16-[HV]|B5pc-[HV]|HKscs-B5-[HV]|ETen-B5-[HV]|ETenms-B5-[HV]|CNS-EUC-[HV]|UniCNS-UCS2-[HV]|UniCNS-UTF16-[HV]|83pv-RKSJ-H|90ms-RKSJ-[HV]|90msp-RKSJ-[HV]|90pv-RKSJ-H|Add-RKSJ-[HV]|EUC-[HV]|Ext-RKSJ-[HV]|[HV]|UniJIS-UCS2-[HV]|UniJIS-UCS2-HW-[HV]|UniJIS-UTF16-[HV]|KSC-EUC-[HV]|KSCms-UHC-[HV]|KSCms-UHC-HW-[HV]|KSCpc-EUC-H|UniKS-UCS2-[HV]|UniKS-UTF16-[HV])$/;
/** Character collections whose CIDs have Unicode values by Adobe's UCS2 CMaps (7.21.7). */
const UNICODE_COLLECTIONS = new Set(['GB1', 'CNS1', 'Japan1', 'Korea1']);
const STANDARD_ENCODINGS = new Set(['WinAnsiEncoding', 'MacRomanEncoding', 'MacExpertEncoding']);

/** The ordering of a predefined CMap's character collection (Adobe TN 5078). */
function predefinedOrdering(name: string): string | undefined {
  if (/^Identity/.test(name)) return undefined;
  if (/KS/.test(name)) return 'Korea1';
  if (/GB/.test(name)) return 'GB1';
  if (/B5|CNS|ETen|HKscs/.test(name)) return 'CNS1';
  return 'Japan1';
}

function fontRule(id: string, description: string, fails: (font: UsedFont, doc: UaDocument) => string | false): UaRule {
  return uaRule(id, description, function* (doc): Iterable<Violation> {
    for (const font of doc.fonts) {
      const failure = fails(font, doc);
      if (failure !== false) for (const page of [...font.pages].slice(0, 1)) yield { page, sample: `${fontLabel(doc.pdf, font)}: ${failure}` };
    }
  });
}

function descriptorOf(doc: UaDocument, font: PdfDict | undefined): PdfDict | undefined {
  return doc.pdf.dict(font?.get('FontDescriptor'));
}

function fontFile(doc: UaDocument, font: PdfDict | undefined): PdfStream | undefined {
  const descriptor = descriptorOf(doc, font);
  return doc.pdf.stream(descriptor?.get('FontFile')) ?? doc.pdf.stream(descriptor?.get('FontFile2')) ?? doc.pdf.stream(descriptor?.get('FontFile3'));
}

function symbolic(doc: UaDocument, font: PdfDict): boolean {
  return ((doc.pdf.number(descriptorOf(doc, font)?.get('Flags')) ?? 0) & 4) !== 0;
}

function systemInfo(doc: UaDocument, dict: PdfDict | undefined): { registry?: string; ordering?: string; supplement?: number } {
  const info = doc.pdf.dict(dict?.get('CIDSystemInfo'));
  return { registry: doc.pdf.text(info?.get('Registry')), ordering: doc.pdf.text(info?.get('Ordering')), supplement: doc.pdf.number(info?.get('Supplement')) };
}

/** The glyph name a simple font's /Differences gives `code`, if it gives one. */
function differenceName(doc: UaDocument, font: PdfDict, code: number): string | undefined {
  const differences = doc.pdf.array(doc.pdf.dict(font.get('Encoding'))?.get('Differences')) ?? [];
  let current = -1;
  let found: string | undefined;
  for (const item of differences) {
    const value = doc.pdf.resolve(item);
    if (typeof value === 'number') current = value;
    else if (value instanceof PdfName) {
      if (current === code) found = value.name;
      current++;
    }
  }
  return found;
}

/** Whether a code of this font has a Unicode value as veraPDF's Glyph.toUnicode finds one (7.21.7-1's conditions). */
function hasUnicode(doc: UaDocument, font: UsedFont, code: number): boolean {
  if (font.toUnicode?.unicode.has(code) === true) return true;
  const subtype = font.dict.name('Subtype');
  if (subtype === 'Type0') {
    const info = systemInfo(doc, font.descendant);
    return info.registry === 'Adobe' && UNICODE_COLLECTIONS.has(info.ordering ?? '');
  }
  const name = differenceName(doc, font.dict, code);
  if (name !== undefined) return name !== '.notdef' && (subtype !== 'Type3' || /^(uni[0-9A-Fa-f]{4}|u[0-9A-Fa-f]{4,6}|[A-Za-z][A-Za-z0-9]*)$/.test(name));
  if (subtype === 'Type3') return false;
  const encoding = doc.pdf.resolve(font.dict.get('Encoding'));
  const encodingName = encoding instanceof PdfName ? encoding.name : doc.pdf.name(doc.pdf.dict(encoding ?? undefined)?.get('BaseEncoding'));
  if (encodingName !== undefined && STANDARD_ENCODINGS.has(encodingName)) return true;
  if (subtype === 'TrueType') return !symbolic(doc, font.dict);
  // Type 1 without an encoding that says: its built-in (standard) encoding names Latin glyphs unless the font is symbolic.
  return !symbolic(doc, font.dict);
}

export const FONT_RULES: readonly UaRule[] = [
  fontRule('7.21.3.1-1', 'For any given composite (Type 0) font within a conforming file, the CIDSystemInfo entry in its CIDFont dictionary and its Encoding dictionary shall have the same Registry and Ordering, and the Supplement of the CIDFont shall be at most that of the CMap', (font, doc) => {
    if (font.dict.name('Subtype') !== 'Type0') return false;
    const encoding = doc.pdf.resolve(font.dict.get('Encoding'));
    const cmapName = encoding instanceof PdfName ? encoding.name : font.embeddedCMap?.stream.dict.name('CMapName');
    if (cmapName === 'Identity-H' || cmapName === 'Identity-V') return false;
    const cid = systemInfo(doc, font.descendant);
    const cmap = font.embeddedCMap === undefined ? { registry: 'Adobe', ordering: predefinedOrdering(cmapName ?? ''), supplement: undefined } : systemInfo(doc, font.embeddedCMap.stream.dict);
    if (cid.registry !== cmap.registry || cid.ordering !== cmap.ordering) return `CIDFont ${cid.registry}-${cid.ordering}, CMap ${cmap.registry}-${cmap.ordering}`;
    if (cid.supplement !== undefined && cmap.supplement !== undefined && cid.supplement > cmap.supplement) return `CIDFont supplement ${cid.supplement} above the CMap's ${cmap.supplement}`;
    return false;
  }),
  fontRule('7.21.3.2-1', 'All embedded Type 2 CIDFonts in the CIDFont dictionary shall contain a CIDToGIDMap entry that shall be a stream mapping from CIDs to glyph indices or the name Identity', (font, doc) => {
    const cid = font.descendant;
    if (cid === undefined || cid.name('Subtype') !== 'CIDFontType2' || fontFile(doc, cid) === undefined) return false;
    const map = doc.pdf.resolve(cid.get('CIDToGIDMap'));
    return map instanceof PdfStream || (map instanceof PdfName && map.name === 'Identity') ? false : `CIDToGIDMap ${map instanceof PdfName ? `/${map.name}` : 'missing'}`;
  }),
  fontRule('7.21.3.3-1', 'All CMaps used within a PDF/UA file, except those listed in ISO 32000-1:2008, 9.7.5.2, Table 118, shall be embedded in that file', (font, doc) => {
    const encoding = doc.pdf.resolve(font.dict.get('Encoding'));
    return font.dict.name('Subtype') === 'Type0' && encoding instanceof PdfName && !PREDEFINED_CMAPS.test(encoding.name) && `CMap /${encoding.name} is not embedded`;
  }),
  fontRule('7.21.3.3-2', 'For those CMaps that are embedded, the integer value of the WMode entry in the CMap dictionary shall be identical to the WMode value in the embedded CMap stream', (font, doc) => {
    if (font.embeddedCMap === undefined) return false;
    const dictMode = doc.pdf.number(font.embeddedCMap.stream.dict.get('WMode')) ?? 0;
    const programMode = font.embeddedCMap.program.wmode ?? 0;
    return dictMode !== programMode && `WMode ${dictMode} in the CMap dictionary, ${programMode} in the CMap program`;
  }),
  fontRule('7.21.3.3-3', 'A CMap shall not reference any other CMap except those listed in ISO 32000-1:2008, 9.7.5.2, Table 118', (font, doc) => {
    if (font.embeddedCMap === undefined) return false;
    const use = doc.pdf.resolve(font.embeddedCMap.stream.dict.get('UseCMap'));
    const name = use instanceof PdfName ? use.name : font.embeddedCMap.program.usecmap;
    if (use instanceof PdfStream) return 'UseCMap is an embedded CMap';
    return name !== undefined && !PREDEFINED_CMAPS.test(name) && `UseCMap ${name}`;
  }),
  fontRule('7.21.4.1-1', 'The font programs for all fonts used for rendering within a conforming file shall be embedded within that file, as defined in ISO 32000-1:2008, 9.9', (font, doc) => {
    if (!font.visible || font.dict.name('Subtype') === 'Type3') return false;
    const target = font.dict.name('Subtype') === 'Type0' ? font.descendant : font.dict;
    return target !== undefined && fontFile(doc, target) === undefined && 'the font program is not embedded';
  }),
  fontRule('7.21.4.1-2', 'Embedded fonts shall define all glyphs referenced for rendering within the conforming file', (font, doc) => {
    // font.codes holds the codes shown in a rendering mode other than 3 (fonts.ts).
    const glyphs = doc.glyphsOf(font.dict);
    const missing = [...font.codes].find((code) => glyphs.glyph(code).present === false);
    return missing !== undefined && `code ${missing} is not in the embedded program`;
  }),
  fontRule('7.21.4.2-1', 'If the FontDescriptor dictionary of an embedded Type 1 font contains a CharSet string, then it shall list the character names of all glyphs present in the font program', (font, doc) => {
    const subtype = font.dict.name('Subtype');
    if ((subtype !== 'Type1' && subtype !== 'MMType1') || !/^[A-Z]{6}\+/.test(doc.pdf.name(font.dict.get('BaseFont')) ?? '')) return false;
    const charSet = doc.pdf.text(descriptorOf(doc, font.dict)?.get('CharSet'));
    return charSetListsAll(doc.glyphsOf(font.dict), charSet) === false && 'the CharSet does not list exactly the program\'s glyphs';
  }),
  fontRule('7.21.4.2-2', 'If the FontDescriptor dictionary of an embedded CID font contains a CIDSet stream, then it shall identify all CIDs which are present in the font program', (font, doc) => {
    if (font.descendant === undefined || !/^[A-Z]{6}\+/.test(doc.pdf.name(font.descendant.get('BaseFont')) ?? '')) return false;
    const bits = doc.pdf.stream(descriptorOf(doc, font.descendant)?.get('CIDSet'))?.decoded();
    return cidSetListsAll(doc.glyphsOf(font.dict), bits) === false && 'the CIDSet does not identify exactly the program\'s CIDs';
  }),
  fontRule('7.21.5-1', 'For every font embedded in a conforming file and used for rendering, the glyph width information in the font dictionary and in the embedded font program shall be consistent', (font, doc) => {
    // TrueType simple fonts only: the other programs (Type 1, CFF) are not parsed here.
    if (!font.visible || font.dict.name('Subtype') !== 'TrueType') return false;
    const bytes = doc.pdf.stream(descriptorOf(doc, font.dict)?.get('FontFile2'))?.decoded();
    const program = bytes === undefined ? undefined : trueTypeWidths(bytes);
    const widths = doc.pdf.array(font.dict.get('Widths'));
    const first = doc.pdf.number(font.dict.get('FirstChar'));
    if (program === undefined || widths === undefined || first === undefined) return false;
    const isSymbolic = symbolic(doc, font.dict);
    for (const code of [...font.codes].sort((a, b) => a - b)) {
      const fromDictionary = doc.pdf.number(widths[code - first]);
      const fromProgram = program.widthOf(code, isSymbolic);
      if (fromDictionary !== undefined && fromProgram !== undefined && Math.abs(fromDictionary - fromProgram) > 1) return `code ${code}: /Widths ${fromDictionary}, the program ${Math.round(fromProgram)}`;
    }
    return false;
  }),
  fontRule('7.21.6-1', 'For all non-symbolic TrueType fonts used for rendering, the embedded TrueType font program shall contain one or several non-symbolic cmap entries such that all necessary glyph lookups can be carried out', (font, doc) => {
    if (font.dict.name('Subtype') !== 'TrueType' || symbolic(doc, font.dict)) return false;
    const bytes = doc.pdf.stream(descriptorOf(doc, font.dict)?.get('FontFile2'))?.decoded();
    const subtables = bytes === undefined ? undefined : cmapSubtables(bytes);
    if (subtables === undefined) return false;
    const has30 = subtables.some((s) => s.platform === 3 && s.encoding === 0);
    return (has30 ? subtables.length <= 1 : subtables.length === 0) && 'the program has no non-symbolic cmap subtable';
  }),
  fontRule('7.21.6-2', 'All non-symbolic TrueType fonts shall have either MacRomanEncoding or WinAnsiEncoding as the value for the Encoding key in the Font dictionary or as the value for the BaseEncoding key in the dictionary which is the value of the Encoding key in the Font dictionary', (font, doc) => {
    if (font.dict.name('Subtype') !== 'TrueType' || symbolic(doc, font.dict)) return false;
    const encoding = doc.pdf.resolve(font.dict.get('Encoding'));
    const name = encoding instanceof PdfName ? encoding.name : doc.pdf.name(doc.pdf.dict(encoding ?? undefined)?.get('BaseEncoding'));
    return name !== 'MacRomanEncoding' && name !== 'WinAnsiEncoding' && (encoding === undefined ? 'no /Encoding' : `encoding ${name ?? 'without BaseEncoding'}`);
  }),
  fontRule('7.21.6-3', 'Symbolic TrueType fonts shall not contain an Encoding entry in the font dictionary', (font, doc) =>
    font.dict.name('Subtype') === 'TrueType' && symbolic(doc, font.dict) && font.dict.has('Encoding') && 'a symbolic TrueType font with /Encoding'),
  fontRule('7.21.6-4', 'The cmap table in the embedded font program for a symbolic TrueType font shall contain either exactly one encoding or it shall contain, at least, the Microsoft Symbol (3,0 - Platform ID=3, Encoding ID=0) encoding', (font, doc) => {
    if (font.dict.name('Subtype') !== 'TrueType' || !symbolic(doc, font.dict)) return false;
    const bytes = doc.pdf.stream(descriptorOf(doc, font.dict)?.get('FontFile2'))?.decoded();
    const subtables = bytes === undefined ? undefined : cmapSubtables(bytes);
    if (subtables === undefined) return false;
    return subtables.length !== 1 && !subtables.some((s) => s.platform === 3 && s.encoding === 0) && `${subtables.length} cmap subtables, none (3,0)`;
  }),
  fontRule('7.21.7-1', 'The Font dictionary of all fonts shall define the map of all used character codes to Unicode values, either via a ToUnicode entry, or other mechanisms as defined in ISO 14289-1, 7.21.7', (font, doc) => {
    const missing = [...font.codes].filter((code) => !hasUnicode(doc, font, code));
    return missing.length > 0 && `${missing.length} codes without a Unicode value (first ${missing[0]})`;
  }),
  fontRule('7.21.7-2', 'The Unicode values specified in the ToUnicode CMap shall all be greater than zero (0), but not equal to either U+FEFF or U+FFFE', (font) => {
    if (font.toUnicode === undefined) return false;
    const bad = [...font.codes].filter((code) => /[\u0000\ufffe\ufeff]/.test(font.toUnicode!.unicode.get(code) ?? ''));
    return bad.length > 0 && `code ${bad[0]} maps to U+${(font.toUnicode.unicode.get(bad[0]!)!.match(/[\u0000\ufffe\ufeff]/)![0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  }),
  fontRule('7.21.8-1', 'A PDF/UA compliant document shall not contain a reference to the .notdef glyph from any of the text showing operators, regardless of text rendering mode', (font, doc) => {
    if (font.dict.name('Subtype') === 'Type0') return false;
    const code = [...font.codes].find((c) => differenceName(doc, font.dict, c) === '.notdef');
    return code !== undefined && `code ${code} is /.notdef in /Differences`;
  }),
];
