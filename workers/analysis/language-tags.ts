// The Lang entries of a tagged document that are not language identifiers
// (ISO 32000-1 §14.9.2: the empty string, or an RFC 3066 / BCP 47 tag):
// the catalog's, each structure element's and each marked-content property
// list's. PDF/UA-1 (veraPDF's 7.2-29) and PDF/A-2 level A (6.7.4-1) state
// the same requirement with the same test, so both report this one reading.
import type { PdfObjects } from '../seams/pdf-objects.js';
import type { PdfDict } from '../untrusted/pdf-values.js';
import type { Violation } from './rules.js';
import type { StructureElement } from './structure-tree.js';

/** A language tag's shape as veraPDF's profiles test it: /^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$/. */
const LANGUAGE_TAG = /^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$/;

/** RFC 1766's shape, letters only, as veraPDF's PDF/A-1A profile tests it (6.8.4-1): /^[a-zA-Z]{1,8}(-[a-zA-Z]{1,8})*$/. */
export const RFC_1766_TAG = /^[a-zA-Z]{1,8}(-[a-zA-Z]{1,8})*$/;

export interface LangSources {
  readonly pdf: PdfObjects;
  readonly catalog: PdfDict | undefined;
  readonly elements: readonly StructureElement[];
  /** Marked-content sequences with their property lists (BDC's operand, inline or from /Properties). */
  readonly sequences: readonly { readonly page: number; readonly tag: string; readonly properties: PdfDict | undefined }[];
}

export function isLanguageIdentifier(value: string, tag: RegExp = LANGUAGE_TAG): boolean {
  return value === '' || tag.test(value);
}

/** `tag`: the shape a language tag must have (default RFC 3066 / BCP 47's as veraPDF tests it; RFC_1766_TAG for PDF/A-1). */
export function* malformedLangs(sources: LangSources, tag: RegExp = LANGUAGE_TAG): Generator<Violation> {
  const { pdf } = sources;
  const isLanguageIdentifier = (value: string) => value === '' || tag.test(value);
  const lang = (dict: PdfDict | undefined) => (dict === undefined ? undefined : pdf.text(dict.get('Lang')));
  const catalogLang = lang(sources.catalog);
  if (catalogLang !== undefined && !isLanguageIdentifier(catalogLang)) yield { sample: `catalog /Lang (${catalogLang})` };
  for (const element of sources.elements) {
    const value = lang(element.dict);
    if (value !== undefined && !isLanguageIdentifier(value)) yield { sample: `${element.type} /Lang (${value})` };
  }
  for (const sequence of sources.sequences) {
    const value = lang(sequence.properties);
    if (value !== undefined && !isLanguageIdentifier(value)) yield { page: sequence.page, sample: `/${sequence.tag} /Lang (${value})` };
  }
}
