// Small readers over structure elements the PDF/UA rules share: attributes
// (§14.7.5: /A is one attribute object or an array of them, with revision
// numbers between), the language an element inherits, and its kids' types.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfDict, type PdfValue } from '../../untrusted/pdf-values.js';
import type { StructureElement } from '../structure-tree.js';

/** The attribute `key` of owner `owner` (Table, Layout, PrintField, ...) on the element; the first one found. */
export function attribute(pdf: PdfObjects, element: StructureElement, owner: string, key: string): PdfValue | undefined {
  const a = pdf.resolve(element.dict.get('A'));
  const objects = Array.isArray(a) ? a : [a];
  for (const item of objects) {
    const dict = pdf.dict(item ?? undefined);
    if (dict !== undefined && dict.name('O') === owner && dict.has(key)) return pdf.resolve(dict.get(key));
  }
  return undefined;
}

/** A text entry of the element (/Alt, /ActualText, /E, /Lang) as text, undefined when absent. */
export function textEntry(pdf: PdfObjects, dict: PdfDict | undefined, key: string): string | undefined {
  return dict === undefined ? undefined : pdf.text(dict.get(key));
}

/** The /Lang of the nearest ancestor (not the element itself) that has one. */
export function parentLang(pdf: PdfObjects, element: StructureElement): string | undefined {
  for (let node = element.parent; node !== undefined; node = node.parent) {
    const lang = textEntry(pdf, node.dict, 'Lang');
    if (lang !== undefined) return lang;
  }
  return undefined;
}

/** The element's /Lang or its nearest ancestor's. */
export function inheritedLang(pdf: PdfObjects, element: StructureElement | undefined): string | undefined {
  for (let node = element; node !== undefined; node = node.parent) {
    const lang = textEntry(pdf, node.dict, 'Lang');
    if (lang !== undefined) return lang;
  }
  return undefined;
}

/** The standard types of the element's structure-element kids, in order (veraPDF's kidsStandardTypes, as a list). */
export function kidTypes(element: StructureElement): string[] {
  return element.kids.map((kid) => kid.standardType).filter((type): type is string => type !== undefined);
}

export function describe(element: StructureElement): string {
  return element.type === element.standardType || element.standardType === undefined ? element.type : `${element.type} (${element.standardType})`;
}
