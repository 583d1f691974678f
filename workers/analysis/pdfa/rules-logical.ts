// Level A (ISO 19005-2 and -3 6.7, Logical structure; 6.2.11.7.3, Unicode
// for level A): the rules veraPDF's PDF/A-2A profile adds to 2U's (its 3A
// profile adds the same, under the same ids). ISO 19005-1 states five of
// them in its 6.8 (veraPDF's PDF/A-1A profile, `PDF_A/1a/` of its
// validation-profiles repository: 6.8.2.2-1, 6.8.3.3-1, 6.8.3.4-1 and -2,
// 6.8.4-1), with no rule on remapped standard types or Private Use text. The document
// is tagged (MarkInfo /Marked true, a StructTreeRoot), every structure type
// is standard or role-mapped to one without loops or remapped standard
// types, every Lang is a language identifier, and text whose Unicode values
// fall in the Private Use Area carries ActualText. The structure tree, the
// role-map resolution and the Lang test are the PDF/UA check's
// (structure-tree.ts, language-tags.ts): one reading of a tagged file.
import { splitCodes } from '../cmap.js';
import { malformedLangs, RFC_1766_TAG } from '../language-tags.js';
import type { Violation } from '../rules.js';
import type { StructureElement } from '../structure-tree.js';
import type { MarkFrame } from '../ua/marked-content.js';
import type { PdfaDocument } from './document.js';
import { at, type PdfaRule } from './rule.js';

/** Unicode's Private Use Areas: the BMP's and planes 15 and 16. */
const PRIVATE_USE = /[\uE000-\uF8FF\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}]/u;

export const LOGICAL_RULES: readonly PdfaRule[] = [
  {
    ids: { 2: '6.2.11.7.3-1' },
    levelA: true,
    description: 'A character mapped to the Unicode Private Use Area, in any rendering mode, shall have an ActualText entry for it or for a sequence of characters it is part of',
    check: privateUseWithoutActualText,
  },
  {
    ids: { 1: '6.8.2.2-1', 2: '6.7.2.2-1' },
    levelA: true,
    description: 'The document catalog dictionary shall include a MarkInfo dictionary containing an entry, Marked, whose value shall be true',
    *check(d) {
      const markInfo = d.pdf.dict(d.pdf.catalog?.get('MarkInfo'));
      const marked = d.pdf.resolve(markInfo?.get('Marked'));
      if (marked !== true) yield at(markInfo === undefined ? 'no /MarkInfo in the catalog' : `/MarkInfo /Marked ${marked === undefined ? 'absent' : String(marked)}`);
    },
  },
  {
    ids: { 1: '6.8.3.3-1', 2: '6.7.3.3-1' },
    levelA: true,
    description: "The logical structure of the conforming file shall be described by a structure hierarchy rooted in the StructTreeRoot entry of the document's Catalog dictionary",
    *check(d) {
      if (d.structure.root === undefined) yield at('no /StructTreeRoot in the catalog');
    },
  },
  {
    ids: { 1: '6.8.3.4-1', 2: '6.7.3.4-1' },
    levelA: true,
    description: 'All non-standard structure types shall be mapped to the nearest functionally equivalent standard type in the role map dictionary of the structure tree root',
    *check(d) {
      for (const element of d.structure.elements) if (element.standardType === undefined && !element.circularMapping) yield at(`/${element.type} is not role-mapped to a standard type`);
    },
  },
  {
    ids: { 1: '6.8.3.4-2', 2: '6.7.3.4-2' },
    levelA: true,
    description: 'A circular mapping shall not exist',
    *check(d) {
      for (const element of d.structure.elements) if (element.circularMapping) yield at(`/${element.type} maps back to itself`);
    },
  },
  {
    ids: { 2: '6.7.3.4-3' },
    levelA: true,
    description: 'Standard tags shall not be remapped to a non-standard type',
    *check(d) {
      for (const element of d.structure.elements) if (element.remapsStandardType) yield at(`/${element.type} is remapped to /${d.structure.roleMap.get(element.type)}`);
    },
  },
  {
    ids: { 1: '6.8.4-1', 2: '6.7.4-1' },
    levelA: true,
    description: "If the Lang entry is present in the document's Catalog dictionary or in a structure element dictionary or property list, its value shall be a language identifier (the empty string, or an RFC 3066 Language-Tag)",
    // Part 1 cites RFC 1766 (letters only); parts 2 and 3 RFC 3066, whose subtags may hold digits.
    check: (d) => malformedLangs({ pdf: d.pdf, catalog: d.pdf.catalog, elements: d.structure.elements, sequences: d.markedContent.sequences }, d.part === 1 ? RFC_1766_TAG : undefined),
  },
];

/**
 * veraPDF's Glyph test `unicodePUA == false || actualTextPresent == true`
 * over every code shown, in any rendering mode: the Unicode value from the
 * font's ToUnicode map, the ActualText from a marked-content sequence
 * around the text or the structure element that owns it (or an ancestor:
 * ActualText replaces everything an element contains, ISO 32000-1 §14.9.4).
 */
function* privateUseWithoutActualText(d: PdfaDocument): Generator<Violation> {
  const fonts = new Map(d.textFonts.map((font) => [font.dict, font]));
  for (const item of d.markedContent.items) {
    if (item.kind !== 'text' || item.font === undefined) continue;
    const font = fonts.get(item.font);
    const unicode = font?.toUnicode?.unicode;
    if (font === undefined || unicode === undefined) continue;
    const composite = font.dict.name('Subtype') === 'Type0';
    const codespaces = font.embeddedCMap?.program.codespaces ?? [];
    let privateCode: number | undefined;
    for (const bytes of item.strings ?? []) {
      for (const code of composite ? splitCodes(bytes, codespaces, 2) : bytes) {
        if (PRIVATE_USE.test(unicode.get(code) ?? '')) {
          privateCode = code;
          break;
        }
      }
      if (privateCode !== undefined) break;
    }
    if (privateCode === undefined || hasActualText(d, item.frames, item.owner)) continue;
    const value = unicode.get(privateCode)!.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    yield at(`font ${font.resourceName}: code ${privateCode} maps to U+${value} with no ActualText`, item.page);
  }
}

function hasActualText(d: PdfaDocument, frames: readonly MarkFrame[], owner: StructureElement | undefined): boolean {
  if (frames.some((frame) => frame.properties !== undefined && d.pdf.text(frame.properties.get('ActualText')) !== undefined)) return true;
  for (let node = owner; node !== undefined; node = node.parent) if (d.pdf.text(node.dict.get('ActualText')) !== undefined) return true;
  return false;
}
