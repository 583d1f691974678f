// An XMP packet as the XMP data model has it (XMP Specification 2005, part 1
// §7 and the RDF serialisation of §7.9): each top-level property a node that
// is a simple value, a structure of fields, or an array (Bag, Seq, Alt) of
// items, each with its qualifiers. The PDF/A metadata rules need that shape
// to check a property's value type (ISO 19005-1 §6.7.9, 19005-2 §6.6.2.3.1)
// and the extension schemas (§6.7.8, §6.6.2.3.3); workers/analysis/xmp.ts's
// flat view loses it. Parsed with @xmldom/xmldom, as xmp.ts is.
import type { Element, Node } from '@xmldom/xmldom';
import { parseStrictXml } from '../xmp.js';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XML = 'http://www.w3.org/XML/1998/namespace';
const XMLNS = 'http://www.w3.org/2000/xmlns/';

export interface XmpNode {
  readonly namespace: string;
  readonly prefix: string;
  readonly name: string;
  readonly kind: 'simple' | 'struct' | 'array';
  /** For arrays: Bag, Seq or Alt. */
  readonly arrayType?: 'Bag' | 'Seq' | 'Alt';
  /** A simple value's text. */
  readonly value: string;
  /** A struct's fields or an array's items (items have name 'li'). */
  readonly children: readonly XmpNode[];
  /** xml:lang, when given. */
  readonly lang?: string;
}

export type XmpTree = { readonly ok: true; readonly properties: readonly XmpNode[] } | { readonly ok: false; readonly error: string };

/** Nesting deeper than this is not metadata a person wrote: the walk stops there. */
const MAX_DEPTH = 32;

export function parseXmpTree(text: string): XmpTree {
  const parsed = parseStrictXml(text);
  if (!parsed.ok) return parsed;
  const properties: XmpNode[] = [];
  for (const description of descriptions(parsed.root, 0)) properties.push(...fieldsOf(description, 0));
  return { ok: true, properties };
}

function* descriptions(node: Node, depth: number): Generator<Element> {
  if (depth > MAX_DEPTH) return;
  for (let child = node.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType !== 1) continue;
    const element = child as Element;
    if (element.namespaceURI === RDF && element.localName === 'Description') yield element;
    else yield* descriptions(element, depth + 1);
  }
}

function elements(node: Element): Element[] {
  const out: Element[] = [];
  for (let child = node.firstChild; child !== null; child = child.nextSibling) if (child.nodeType === 1) out.push(child as Element);
  return out;
}

/** Property attributes and property elements of an rdf:Description (or of a struct's node). */
function fieldsOf(element: Element, depth: number): XmpNode[] {
  const found: XmpNode[] = [];
  for (let i = 0; i < element.attributes.length; i++) {
    const attribute = element.attributes.item(i)!;
    const namespace = attribute.namespaceURI;
    if (namespace === null || namespace === RDF || namespace === XMLNS || namespace === XML) continue;
    found.push({ namespace, prefix: attribute.prefix ?? '', name: attribute.localName ?? attribute.name, kind: 'simple', value: attribute.value, children: [] });
  }
  for (const child of elements(element)) {
    if (child.namespaceURI === null) continue;
    found.push(propertyNode(child, depth + 1));
  }
  return found;
}

function propertyNode(element: Element, depth: number): XmpNode {
  const base = { namespace: element.namespaceURI ?? '', prefix: element.prefix ?? '', name: element.localName ?? element.nodeName };
  const langAttribute = element.getAttributeNS(XML, 'lang') || element.getAttribute('xml:lang');
  const lang = langAttribute === null || langAttribute === '' ? undefined : langAttribute;
  const withLang = lang === undefined ? base : { ...base, lang };
  if (depth > MAX_DEPTH) return { ...withLang, kind: 'simple', value: '', children: [] };
  const resource = element.getAttributeNS(RDF, 'resource');
  if (resource !== null && resource !== '') return { ...withLang, kind: 'simple', value: resource, children: [] };
  const children = elements(element);
  if (element.getAttributeNS(RDF, 'parseType') === 'Resource') return { ...withLang, kind: 'struct', value: '', children: fieldsOf(element, depth) };
  const container = children.length === 1 ? children[0]! : undefined;
  if (container?.namespaceURI === RDF && ['Bag', 'Seq', 'Alt'].includes(container.localName ?? '')) {
    const items = elements(container)
      .filter((item) => item.namespaceURI === RDF && item.localName === 'li')
      .map((item) => propertyNode(item, depth + 1));
    return { ...withLang, kind: 'array', arrayType: container.localName as 'Bag' | 'Seq' | 'Alt', value: '', children: items };
  }
  if (container?.namespaceURI === RDF && container.localName === 'Description') {
    const fields = fieldsOf(container, depth);
    const value = fields.find((field) => field.namespace === RDF && field.name === 'value');
    return value === undefined ? { ...withLang, kind: 'struct', value: '', children: fields } : { ...withLang, kind: value.kind, value: value.value, children: value.children };
  }
  if (children.length > 0) return { ...withLang, kind: 'struct', value: '', children: children.map((child) => propertyNode(child, depth + 1)) };
  const attributeFields = fieldsOf(element, depth).filter((field) => field.namespace !== XML);
  if (attributeFields.length > 0) return { ...withLang, kind: 'struct', value: '', children: attributeFields };
  return { ...withLang, kind: 'simple', value: element.textContent ?? '', children: [] };
}
