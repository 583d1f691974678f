// What changed, as a reader sees it, between the revision a signature covers
// and the file as it is now. Adding a signature, a timestamp or validation
// data (DSS) after signing is normal (ISO 32000-2 12.8.2.2: DocMDP P=2 and 3
// allow it) and rewrites the catalog and a page's /Annots on the way, so
// "objects changed" alone says little; what matters is whether page
// content, the pages themselves, annotations other than signature widgets,
// or form field values differ. Both states are read with the object view:
// the signed revision is the file cut at the end of its byte range, which
// is a complete PDF of its own (7.5.6).
import { createHash } from 'node:crypto';
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfDict, PdfStream, type PdfValue } from '../../untrusted/pdf-values.js';
import type { SignedChange } from './signatures.js';

interface PageState {
  readonly content: string;
  /** Annotations other than signature widgets, as subtype:rect:contents strings. */
  readonly annotations: string;
}

export interface DocumentState {
  readonly pages: readonly PageState[];
  /** Fully qualified name → value, signature fields left out. */
  readonly fields: ReadonlyMap<string, string>;
}

/** Fields read at most (a form of more is compared up to here). */
const MAX_FIELDS = 10_000;

export function documentState(objects: PdfObjects): DocumentState {
  const pages = objects.pages.map((page): PageState => {
    const hash = createHash('sha256');
    const contents = objects.resolve(page.dict.get('Contents'));
    for (const part of Array.isArray(contents) ? contents : [contents]) {
      const stream = objects.stream(part);
      if (stream !== undefined) hash.update(stream.decoded() ?? stream.raw);
    }
    const annotations: string[] = [];
    for (const entry of objects.array(page.dict.get('Annots')) ?? []) {
      const annotation = objects.dict(entry);
      if (annotation === undefined || isSignatureWidget(objects, annotation)) continue;
      annotations.push(`${annotation.name('Subtype') ?? '?'}:${(objects.array(annotation.get('Rect')) ?? []).join(' ')}:${objects.text(annotation.get('Contents')) ?? ''}`);
    }
    return { content: hash.digest('hex'), annotations: annotations.sort().join('\n') };
  });
  const fields = new Map<string, string>();
  const walk = (entry: PdfValue, prefix: string, depth: number, seen: Set<PdfDict>): void => {
    const field = objects.dict(entry);
    if (field === undefined || seen.has(field) || depth > 32 || fields.size >= MAX_FIELDS) return;
    seen.add(field);
    const partial = objects.text(field.get('T'));
    const name = partial === undefined ? prefix : prefix === '' ? partial : `${prefix}.${partial}`;
    if (objects.name(field.get('FT')) !== 'Sig' && field.has('V')) fields.set(name, describe(objects, field.get('V')));
    for (const kid of objects.array(field.get('Kids')) ?? []) walk(kid, name, depth + 1, seen);
  };
  const seen = new Set<PdfDict>();
  for (const entry of objects.array(objects.dict(objects.catalog?.get('AcroForm'))?.get('Fields')) ?? []) walk(entry, '', 0, seen);
  return { pages, fields };
}

export function compareStates(signed: DocumentState, now: DocumentState): SignedChange[] {
  const changes: SignedChange[] = [];
  const common = Math.min(signed.pages.length, now.pages.length);
  const content: number[] = [];
  const annotations: number[] = [];
  for (let i = 0; i < common; i++) {
    if (signed.pages[i]?.content !== now.pages[i]?.content) content.push(i + 1);
    if (signed.pages[i]?.annotations !== now.pages[i]?.annotations) annotations.push(i + 1);
  }
  if (content.length > 0) changes.push({ kind: 'page-content', pages: content });
  if (now.pages.length > signed.pages.length) changes.push({ kind: 'pages-added', pages: range(signed.pages.length + 1, now.pages.length) });
  if (now.pages.length < signed.pages.length) changes.push({ kind: 'pages-removed', pages: range(now.pages.length + 1, signed.pages.length) });
  if (annotations.length > 0) changes.push({ kind: 'annotations', pages: annotations });
  const fields = [...new Set([...signed.fields.keys(), ...now.fields.keys()])].filter((name) => signed.fields.get(name) !== now.fields.get(name));
  if (fields.length > 0) changes.push({ kind: 'form-fields', fields: fields.sort() });
  return changes;
}

function isSignatureWidget(objects: PdfObjects, annotation: PdfDict): boolean {
  if (annotation.name('Subtype') !== 'Widget') return false;
  // A widget merged with its field has /FT itself; otherwise its /Parent has it.
  return objects.name(annotation.get('FT')) === 'Sig' || objects.name(objects.dict(annotation.get('Parent'))?.get('FT')) === 'Sig';
}

function describe(objects: PdfObjects, value: PdfValue | undefined): string {
  const resolved = objects.resolve(value);
  if (resolved instanceof PdfStream) return `stream:${createHash('sha256').update(resolved.raw).digest('hex')}`;
  if (resolved instanceof PdfDict) return `dict:${[...resolved.entries.keys()].join(',')}`;
  if (Array.isArray(resolved)) return resolved.map((item) => describe(objects, item)).join('|');
  const text = objects.text(resolved);
  return text ?? String(resolved?.toString() ?? 'null');
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
