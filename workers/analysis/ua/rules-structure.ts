// PDF/UA-1 rules on the structure tree: role mapping (7.1), the nesting of
// tables, lists and tables of contents (7.2), alternative text for figures
// and formulas (7.3, 7.7), headings (7.4), notes (7.9). veraPDF checks each
// as a test on one element (`parentStandardType`, `kidsStandardTypes`);
// these are the same tests over every element of the tree.
import type { Violation } from '../rules.js';
import type { StructureElement } from '../structure-tree.js';
import type { UaDocument } from './document.js';
import { describe, kidTypes, textEntry } from './elements.js';
import { uaRule, type UaRule } from './rule.js';

/** One violation per element of standard type `type` that `fails`. */
function eachOf(type: string | readonly string[], fails: (element: StructureElement, doc: UaDocument) => string | boolean): (doc: UaDocument) => Iterable<Violation> {
  const types = new Set(typeof type === 'string' ? [type] : type);
  return function* (doc) {
    for (const element of doc.structure.elements) {
      if (element.standardType === undefined || !types.has(element.standardType)) continue;
      const failure = fails(element, doc);
      if (failure !== false) yield { sample: typeof failure === 'string' ? failure : describe(element) };
    }
  };
}

const parentType = (element: StructureElement) => element.parent?.standardType ?? '';
const count = (types: readonly string[], type: string) => types.filter((t) => t === type).length;
const onlyKids = (allowed: readonly string[]) => (element: StructureElement) => {
  const bad = kidTypes(element).filter((type) => !allowed.includes(type));
  return bad.length > 0 ? `${describe(element)} contains ${bad.join(', ')}` : false;
};
const parentMustBe = (allowed: readonly string[]) => (element: StructureElement) =>
  allowed.includes(parentType(element)) ? false : `${describe(element)} inside ${parentType(element) || 'the structure tree root'}`;

const HEADINGS = ['H1', 'H2', 'H3', 'H4', 'H5', 'H6'];

export const STRUCTURE_RULES: readonly UaRule[] = [
  uaRule('7.1-5', 'All non-standard structure types shall be mapped to the nearest functionally equivalent standard type', function* (doc) {
    for (const element of doc.structure.elements) if (element.standardType === undefined && !element.circularMapping) yield { sample: `/${element.type} is not role-mapped to a standard type` };
  }),
  uaRule('7.1-6', 'A circular mapping shall not exist', function* (doc) {
    for (const element of doc.structure.elements) if (element.circularMapping) yield { sample: `/${element.type} maps back to itself` };
  }),
  uaRule('7.1-7', 'Standard tags defined in ISO 32000-1:2008, 14.8.4, shall not be remapped', function* (doc) {
    for (const element of doc.structure.elements) if (element.remapsStandardType) yield { sample: `/${element.type} is remapped to /${doc.structure.roleMap.get(element.type)}` };
  }),
  uaRule('7.1-12', 'A structure element dictionary shall contain the P (parent) entry according to ISO 32000-1:2008, 14.7.2, Table 355', function* (doc) {
    for (const element of doc.structure.elements) if (!element.dict.has('P')) yield { sample: `${describe(element)} has no /P` };
  }),
  uaRule('7.2-3', 'Table element may contain only TR, THead, TBody, TFoot and Caption elements', eachOf('Table', onlyKids(['TR', 'THead', 'TBody', 'TFoot', 'Caption']))),
  uaRule('7.2-4', 'TR element should be contained in Table, THead, TBody or TFoot element', eachOf('TR', parentMustBe(['Table', 'THead', 'TBody', 'TFoot']))),
  uaRule('7.2-5', 'THead element should be contained in Table element', eachOf('THead', parentMustBe(['Table']))),
  uaRule('7.2-6', 'TBody element should be contained in Table element', eachOf('TBody', parentMustBe(['Table']))),
  uaRule('7.2-7', 'TFoot element should be contained in Table element', eachOf('TFoot', parentMustBe(['Table']))),
  uaRule('7.2-8', 'TH element should be contained in TR element', eachOf('TH', parentMustBe(['TR']))),
  uaRule('7.2-9', 'TD element should be contained in TR element', eachOf('TD', parentMustBe(['TR']))),
  uaRule('7.2-10', 'TR element may contain only TH and TD elements', eachOf('TR', onlyKids(['TH', 'TD']))),
  uaRule('7.2-11', 'Table element should contain zero or one THead kid', eachOf('Table', (e) => count(kidTypes(e), 'THead') > 1)),
  uaRule('7.2-12', 'Table element should contain zero or one TFoot kid', eachOf('Table', (e) => count(kidTypes(e), 'TFoot') > 1)),
  uaRule('7.2-13', 'If Table element contains TFoot kid, Table element should contain one or more TBody kids', eachOf('Table', (e) => count(kidTypes(e), 'TFoot') > 0 && count(kidTypes(e), 'TBody') === 0)),
  uaRule('7.2-14', 'If Table element contains THead kid, Table element should contain one or more TBody kids', eachOf('Table', (e) => count(kidTypes(e), 'THead') > 0 && count(kidTypes(e), 'TBody') === 0)),
  uaRule('7.2-16', 'Table element may contain a Caption element as its first or last kid', eachOf('Table', (e) => kidTypes(e).slice(1, -1).includes('Caption'))),
  uaRule('7.2-17', 'LI element should be contained in L element', eachOf('LI', parentMustBe(['L']))),
  uaRule('7.2-18', 'LBody element should be contained in LI element', eachOf('LBody', parentMustBe(['LI']))),
  uaRule('7.2-19', 'L element may contain only L, LI and Caption elements', eachOf('L', onlyKids(['L', 'LI', 'Caption']))),
  uaRule('7.2-20', 'LI element may contain only Lbl and LBody elements', eachOf('LI', onlyKids(['Lbl', 'LBody']))),
  uaRule('7.2-26', 'TOCI element should be contained in TOC element', eachOf('TOCI', parentMustBe(['TOC']))),
  uaRule('7.2-27', 'TOC element may contain only TOC, TOCI and Caption elements', eachOf('TOC', onlyKids(['TOC', 'TOCI', 'Caption']))),
  uaRule('7.2-28', 'TOC element may contain a Caption element only as its first kid', eachOf('TOC', (e) => kidTypes(e).slice(1).includes('Caption'))),
  uaRule('7.2-36', 'THead element may contain only TR elements', eachOf('THead', onlyKids(['TR']))),
  uaRule('7.2-37', 'TBody element may contain only TR elements', eachOf('TBody', onlyKids(['TR']))),
  uaRule('7.2-38', 'TFoot element may contain only TR elements', eachOf('TFoot', onlyKids(['TR']))),
  uaRule('7.2-39', 'Table element may contain only one Caption element', eachOf('Table', (e) => count(kidTypes(e), 'Caption') >= 2)),
  uaRule('7.2-40', 'L element may contain a Caption element only as its first kid', eachOf('L', (e) => kidTypes(e).slice(1).includes('Caption'))),
  uaRule('7.3-1', 'Figure tags shall include an alternative representation or replacement text that represents the contents marked with the Figure tag', eachOf('Figure', (e, doc) => !hasAlternative(doc, e) && `${describe(e)} without /Alt or /ActualText`)),
  uaRule('7.4.2-1', 'For documents that are not strongly structured, heading tags shall be used as follows: if any heading tags are used, H1 shall be the first; a heading tag for a level shall follow one of the same, the previous or a higher level', function* (doc) {
    let previous = 0;
    for (const element of doc.structure.elements) {
      const level = HEADINGS.indexOf(element.standardType ?? '') + 1;
      if (level === 0) continue;
      if (level > previous + 1) yield { sample: previous === 0 ? `the first heading is ${describe(element)}` : `${describe(element)} follows H${previous}` };
      previous = level;
    }
  }),
  uaRule('7.4.4-1', 'Each node in the tag tree shall contain at most one child H tag', function* (doc) {
    for (const element of doc.structure.elements) if (count(kidTypes(element), 'H') > 1) yield { sample: `${describe(element)} has ${count(kidTypes(element), 'H')} H kids` };
  }),
  uaRule('7.4.4-2', 'All documents shall be either strongly or weakly structured, but not both (an H element in a document that uses H1-H6)', function* (doc) {
    if (!doc.structure.elements.some((e) => HEADINGS.includes(e.standardType ?? ''))) return;
    for (const element of doc.structure.elements) if (element.standardType === 'H') yield { sample: describe(element) };
  }),
  uaRule('7.4.4-3', 'All documents shall be either strongly or weakly structured, but not both (an H1-H6 element in a document that uses H)', function* (doc) {
    if (!doc.structure.elements.some((e) => e.standardType === 'H')) return;
    for (const element of doc.structure.elements) if (HEADINGS.includes(element.standardType ?? '')) yield { sample: describe(element) };
  }),
  uaRule('7.7-1', 'All mathematical expressions shall be enclosed within a Formula tag and shall have Alt or ActualText attribute', eachOf('Formula', (e, doc) => !hasAlternative(doc, e) && `${describe(e)} without /Alt or /ActualText`)),
  uaRule('7.9-1', 'Note tag shall have ID entry', eachOf('Note', (e, doc) => !noteId(doc, e) && `${describe(e)} without /ID`)),
  uaRule('7.9-2', 'Each Note tag shall have unique ID key', function* (doc) {
    const seen = new Set<string>();
    for (const element of doc.structure.elements) {
      if (element.standardType !== 'Note') continue;
      const id = noteId(doc, element);
      if (id === '') continue;
      if (seen.has(id)) yield { sample: `Note /ID ${id} repeats` };
      seen.add(id);
    }
  }),
];

function hasAlternative(doc: UaDocument, element: StructureElement): boolean {
  const alt = textEntry(doc.pdf, element.dict, 'Alt');
  return (alt !== undefined && alt !== '') || textEntry(doc.pdf, element.dict, 'ActualText') !== undefined;
}

function noteId(doc: UaDocument, element: StructureElement): string {
  return textEntry(doc.pdf, element.dict, 'ID') ?? '';
}
