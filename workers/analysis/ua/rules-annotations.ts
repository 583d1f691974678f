// PDF/UA-1 rules on annotations (7.18) and the language of their text
// (7.2-24, 7.2-25): each annotation of each page, with the structure element
// that owns it (an OBJR kid, else the ParentTree entry of its /StructParent),
// whether it is hidden (flag 2) or outside the crop box (veraPDF exempts
// both), tested as veraPDF's PDAnnot, PDWidgetAnnot and PDLinkAnnot tests do.
import { PdfDict, type PdfValue } from '../../untrusted/pdf-values.js';
import { refKey, type StructureElement } from '../structure-tree.js';
import type { Violation } from '../rules.js';
import type { UaDocument } from './document.js';
import { attribute, describe, inheritedLang, textEntry } from './elements.js';
import { uaRule, type UaRule } from './rule.js';

interface Annotation {
  readonly page: number;
  readonly dict: PdfDict;
  readonly subtype: string;
  /** Flag 2 (Hidden) set, or the rectangle entirely outside the page's crop box: veraPDF checks neither. */
  readonly exempt: boolean;
  readonly owner: StructureElement | undefined;
}

// Popup annotations are left out of 7.18.1-1/-2 as veraPDF leaves them out:
// a popup shows its parent markup annotation's Contents and has no content
// of its own (ISO 32000-1 §12.5.6.14); the corpus's pass files have untagged ones.

/** Annotations per page read at most. */
const MAX_ANNOTATIONS_PER_PAGE = 100_000;

function annotations(doc: UaDocument): readonly Annotation[] {
  const found: Annotation[] = [];
  for (const page of doc.pdf.pages) {
    const box = boxOf(doc, page.inherited('CropBox')) ?? boxOf(doc, page.inherited('MediaBox'));
    for (const item of (doc.pdf.array(page.dict.get('Annots')) ?? []).slice(0, MAX_ANNOTATIONS_PER_PAGE)) {
      const dict = doc.pdf.dict(item);
      if (dict === undefined) continue;
      const flags = doc.pdf.number(dict.get('F')) ?? 0;
      const rect = boxOf(doc, dict.get('Rect'));
      const outside = box !== undefined && rect !== undefined && (rect[2] < box[0] || rect[0] > box[2] || rect[3] < box[1] || rect[1] > box[3]);
      const structParent = doc.pdf.number(dict.get('StructParent'));
      const owner = doc.structure.objectOwners.get(refKey(dict.ref)) ?? (structParent === undefined ? undefined : doc.structure.parentTreeElement(structParent));
      found.push({ page: page.index + 1, dict, subtype: dict.name('Subtype') ?? '', exempt: (flags & 2) === 2 || outside, owner });
    }
  }
  return found;
}

/** [x1 y1 x2 y2] normalised so x1 <= x2, y1 <= y2. */
function boxOf(doc: UaDocument, value: PdfValue | undefined): [number, number, number, number] | undefined {
  const numbers = (doc.pdf.array(value) ?? []).map((v) => doc.pdf.number(v));
  if (numbers.length !== 4 || numbers.some((n) => n === undefined)) return undefined;
  const [a, b, c, d] = numbers as number[];
  return [Math.min(a!, c!), Math.min(b!, d!), Math.max(a!, c!), Math.max(b!, d!)];
}

const nonEmpty = (text: string | undefined) => text !== undefined && text !== '';

/** The field's TU, from the widget or the field it belongs to (a widget merged with its field, or a kid of it). */
function fieldTooltip(doc: UaDocument, widget: PdfDict): string | undefined {
  let node: PdfDict | undefined = widget;
  for (let depth = 0; node !== undefined && depth < 32; depth++) {
    const tu = doc.pdf.text(node.get('TU'));
    if (tu !== undefined) return tu;
    node = doc.pdf.dict(node.get('Parent'));
  }
  return undefined;
}

function annotationRule(id: string, description: string, fails: (a: Annotation, doc: UaDocument) => string | false): UaRule {
  return uaRule(id, description, function* (doc): Iterable<Violation> {
    for (const annotation of annotations(doc)) {
      const failure = fails(annotation, doc);
      if (failure !== false) yield { page: annotation.page, sample: failure };
    }
  });
}

export const ANNOTATION_RULES: readonly UaRule[] = [
  annotationRule('7.18.1-1', 'An annotation, excluding annotations of subtype Widget, PrinterMark or Link, shall be nested within an Annot tag', (a) =>
    !['Widget', 'PrinterMark', 'Link', 'Popup'].includes(a.subtype) && !a.exempt && a.owner?.standardType !== 'Annot' && `a ${a.subtype} annotation ${a.owner === undefined ? 'outside the structure tree' : `in ${describe(a.owner)}`}`),
  annotationRule('7.18.1-2', 'An annotation (except Widget annotations or hidden annotations, or those having rectangle outside the crop-box) shall have either Contents key or an Alt entry in the enclosing structure element', (a, doc) =>
    a.subtype !== 'Widget' && a.subtype !== 'Popup' && !a.exempt && !nonEmpty(doc.pdf.text(a.dict.get('Contents'))) && !nonEmpty(textEntry(doc.pdf, a.owner?.dict, 'Alt')) && `a ${a.subtype} annotation without /Contents or /Alt`),
  annotationRule('7.18.1-3', 'A form field shall have a TU key present or all its Widget annotations shall have alternative descriptions (in the form of an Alt entry in the enclosing structure elements)', (a, doc) =>
    a.subtype === 'Widget' && !a.exempt && !nonEmpty(fieldTooltip(doc, a.dict)) && !nonEmpty(textEntry(doc.pdf, a.owner?.dict, 'Alt')) && `a widget of field ${doc.pdf.text(a.dict.get('T')) ?? ''} without /TU or /Alt`),
  annotationRule('7.18.2-1', 'Annotations of subtype TrapNet shall not be permitted', (a) => a.subtype === 'TrapNet' && !a.exempt && 'a TrapNet annotation'),
  uaRule('7.18.3-1', 'Every page on which there is an annotation shall contain in its page dictionary the key Tabs, and its value shall be S', function* (doc) {
    for (const page of doc.pdf.pages) {
      if ((doc.pdf.array(page.dict.get('Annots')) ?? []).length > 0 && doc.pdf.name(page.dict.get('Tabs')) !== 'S') yield { page: page.index + 1, sample: `/Tabs ${doc.pdf.name(page.dict.get('Tabs')) ?? 'missing'}` };
    }
  }),
  annotationRule('7.18.4-1', 'A Widget annotation shall be nested within a Form tag per ISO 32000-1:2008, 14.8.4.5, Table 340', (a) =>
    a.subtype === 'Widget' && !a.exempt && a.owner?.standardType !== 'Form' && `a widget ${a.owner === undefined ? 'outside the structure tree' : `in ${describe(a.owner)}`}`),
  uaRule('7.18.4-2', 'If the Form element omits a Role attribute (Table 348), it shall have only one child: an object reference (14.7.4.3) identifying the widget annotation', function* (doc) {
    for (const element of doc.structure.elements) {
      if (element.standardType !== 'Form' || attribute(doc.pdf, element, 'PrintField', 'Role') !== undefined) continue;
      if (element.objects.length !== 1 || element.kids.length > 0) yield { sample: `${describe(element)} without /Role has ${element.objects.length} object references and ${element.kids.length} element kids` };
    }
  }),
  annotationRule('7.18.5-1', 'Links shall be tagged according to ISO 32000-1:2008, 14.8.4.4.2, Link Element', (a) =>
    a.subtype === 'Link' && !a.exempt && a.owner?.standardType !== 'Link' && `a link ${a.owner === undefined ? 'outside the structure tree' : `in ${describe(a.owner)}`}`),
  annotationRule('7.18.5-2', 'Links shall contain an alternate description via their Contents key as described in ISO 32000-1:2008, 14.9.3', (a, doc) =>
    a.subtype === 'Link' && !a.exempt && !nonEmpty(doc.pdf.text(a.dict.get('Contents'))) && 'a link without /Contents'),
  uaRule('7.18.6.2-1', 'In the media clip data dictionary, the optional CT key (ISO 32000-1:2008, 13.2.4.2, Table 274) is required', function* (doc) {
    for (const clip of mediaClips(doc)) if (!clip.has('CT')) yield { sample: 'a media clip without /CT' };
  }),
  uaRule('7.18.6.2-2', 'In the media clip data dictionary, the optional Alt key (ISO 32000-1:2008, 13.2.4.2, Table 274) is required', function* (doc) {
    for (const clip of mediaClips(doc)) {
      const alt = doc.pdf.array(clip.get('Alt'));
      const texts = (alt ?? []).filter((_, i) => i % 2 === 1).map((v) => doc.pdf.text(v));
      if (alt === undefined || alt.length === 0 || alt.length % 2 !== 0 || texts.some((t) => t === undefined || t === '')) yield { sample: 'a media clip without a well-formed /Alt (language, non-empty text pairs)' };
    }
  }),
  annotationRule('7.18.8-1', 'PrinterMark annotations, if present, shall be considered Incidental Artifacts', (a) => a.subtype === 'PrinterMark' && !a.exempt && a.owner !== undefined && `a PrinterMark annotation in ${describe(a.owner)}`),
  annotationRule('7.2-24', 'Natural language in the Contents entry for annotations shall be determined', (a, doc) =>
    !doc.hasCatalogLang && doc.pdf.text(a.dict.get('Contents')) !== undefined && doc.pdf.text(a.dict.get('Lang')) === undefined && inheritedLang(doc.pdf, a.owner) === undefined && `a ${a.subtype} annotation's /Contents without a language`),
  uaRule('7.2-25', 'Natural language in the TU key for form fields shall be determined', function* (doc) {
    if (doc.hasCatalogLang) return;
    for (const a of annotations(doc)) {
      if (a.subtype === 'Widget' && fieldTooltip(doc, a.dict) !== undefined && inheritedLang(doc.pdf, a.owner) === undefined) yield { page: a.page, sample: 'a form field /TU without a language' };
    }
  }),
];

function* mediaClips(doc: UaDocument): Generator<PdfDict> {
  for (const dict of doc.allDicts()) if (dict.name('Type') === 'MediaClip' || (dict.name('S') === 'MCD' && dict.has('D'))) yield dict;
}
