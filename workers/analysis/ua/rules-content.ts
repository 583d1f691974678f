// PDF/UA-1 rules on the content of the pages and the language of text:
// real content tagged or marked as an artifact, never both (7.1-1..3), the
// natural language of text, alternative text and metadata determinable
// (7.2-2, 7.2-21..34), Lang values well-formed (7.2-29), and Form XObjects
// with tagged content used in one structural place only (7.20-2).
import { malformedLangs } from '../language-tags.js';
import type { Violation } from '../rules.js';
import type { UaDocument } from './document.js';
import { describe, inheritedLang, parentLang, textEntry } from './elements.js';
import type { MarkFrame } from './marked-content.js';
import { uaRule, type UaRule } from './rule.js';

/** The Lang of the innermost marked-content sequence that has one. */
function frameLang(doc: UaDocument, frames: readonly MarkFrame[]): string | undefined {
  for (let i = frames.length - 1; i >= 0; i--) {
    const lang = textEntry(doc.pdf, frames[i]!.properties, 'Lang');
    if (lang !== undefined) return lang;
  }
  return undefined;
}

/** An element's language entry (ActualText, Alt, E) whose language cannot be determined (7.2-21..23). */
function elementTextLang(key: 'ActualText' | 'Alt' | 'E') {
  return function* (doc: UaDocument): Iterable<Violation> {
    if (doc.hasCatalogLang) return;
    for (const element of doc.structure.elements) {
      if (textEntry(doc.pdf, element.dict, key) === undefined) continue;
      if (element.dict.has('Lang') || parentLang(doc.pdf, element) !== undefined) continue;
      yield { sample: `${describe(element)} has /${key} and no language` };
    }
  };
}

/** A Span marked-content sequence's ActualText, Alt or E whose language cannot be determined (7.2-30..32). */
function spanTextLang(key: 'ActualText' | 'Alt' | 'E') {
  return function* (doc: UaDocument): Iterable<Violation> {
    if (doc.hasCatalogLang) return;
    for (const sequence of doc.markedContent.sequences) {
      if (sequence.tag !== 'Span' || textEntry(doc.pdf, sequence.properties, key) === undefined) continue;
      if (textEntry(doc.pdf, sequence.properties, 'Lang') !== undefined || frameLang(doc, sequence.parents) !== undefined || inheritedLang(doc.pdf, sequence.owner) !== undefined) continue;
      yield { page: sequence.page, sample: `a Span with /${key} and no language` };
    }
  };
}

export const CONTENT_RULES: readonly UaRule[] = [
  uaRule('7.1-1', 'Content marked as Artifact should not be present inside tagged content', function* (doc) {
    for (const s of doc.markedContent.sequences) {
      if (s.tag === 'Artifact' && s.parents.some((f) => f.mcid !== undefined)) yield { page: s.page, sample: 'an Artifact sequence inside tagged content' };
    }
  }),
  uaRule('7.1-2', 'Tagged content should not be present inside content marked as Artifact', function* (doc) {
    for (const s of doc.markedContent.sequences) {
      if (s.mcid !== undefined && s.parents.some((f) => f.tag === 'Artifact')) yield { page: s.page, sample: `/${s.tag} with MCID ${s.mcid} inside an Artifact` };
    }
  }),
  uaRule('7.1-3', 'Content shall be marked as Artifact or tagged as real content', function* (doc) {
    for (const item of doc.markedContent.items) if (!item.tagged && !item.artifact) yield { page: item.page, sample: `${item.kind} outside any tagged or Artifact sequence` };
  }),
  uaRule('7.2-2', 'Natural language in the Outline entries shall be determined', function* (doc) {
    if (doc.hasCatalogLang) return;
    const outlines = doc.pdf.dict(doc.catalog.get('Outlines'));
    if (outlines !== undefined && doc.pdf.dict(outlines.get('First')) !== undefined) yield { sample: 'outline entries without a catalog /Lang' };
  }),
  uaRule('7.2-21', 'Natural language for text in ActualText attribute shall be determined', elementTextLang('ActualText')),
  uaRule('7.2-22', 'Natural language for text in Alt attribute shall be determined', elementTextLang('Alt')),
  uaRule('7.2-23', 'Natural language for text in E attribute shall be determined', elementTextLang('E')),
  uaRule('7.2-29', 'If the Lang entry is present in the document\'s Catalog dictionary or in a structure element dictionary or property list, its value shall be a language identifier as described in ISO 32000-1:2008, 14.9.2', (doc) =>
    malformedLangs({ pdf: doc.pdf, catalog: doc.catalog, elements: doc.structure.elements, sequences: doc.markedContent.sequences }),
  ),
  uaRule('7.2-30', 'Natural language for text in ActualText attribute in Span Marked Content shall be determined', spanTextLang('ActualText')),
  uaRule('7.2-31', 'Natural language for text in Alt attribute in Span Marked Content shall be determined', spanTextLang('Alt')),
  uaRule('7.2-32', 'Natural language for text in E attribute in Span Marked Content shall be determined', spanTextLang('E')),
  uaRule('7.2-34', 'Natural language for text in page content shall be determined', function* (doc) {
    if (doc.hasCatalogLang) return;
    for (const item of doc.markedContent.items) {
      if (item.kind !== 'text' || item.artifact) continue;
      if (frameLang(doc, item.frames) !== undefined || inheritedLang(doc.pdf, item.owner) !== undefined) continue;
      yield { page: item.page, sample: 'text without a language' };
    }
  }),
  uaRule('7.20-2', 'The content of Form XObjects shall be incorporated into structure elements according to ISO 32000-1:2008, 14.7.2', function* (doc) {
    // A form's own marked content (its MCIDs, referenced by MCRs with /Stm) claimed by more than one element.
    const claims = new Map<string, Set<unknown>>();
    for (const element of doc.structure.elements) {
      for (const id of element.contentIds) {
        if (id.stream === undefined) continue;
        const key = `${id.stream.num} ${id.stream.gen}|${id.mcid}`;
        claims.set(key, (claims.get(key) ?? new Set()).add(element));
      }
    }
    for (const [key, owners] of claims) if (owners.size > 1) yield { sample: `MCID ${key.split('|')[1]} of Form XObject ${key.split('|')[0]} belongs to ${owners.size} structure elements` };
    for (const [, use] of doc.markedContent.forms) {
      if (use.tagged && use.owners.size > 1) yield { page: use.page, sample: 'a Form XObject with tagged content drawn in several structure elements' };
    }
  }),
];
