// The document's XMP metadata packet (ISO 16684-1) as the analysis rules need
// it: whether it is well-formed XML, and its properties by namespace URI and
// name, whichever prefix the file bound them to (PDF/A and PDF/UA identify
// properties by URI: `pdfaid:part` under any prefix is the same property).
// Parsed with @xmldom/xmldom, a namespace-aware W3C DOM parser; RDF's two
// spellings of a simple property (an attribute of rdf:Description or a
// child element) are read alike.
import { DOMParser, type Element, type Node } from '@xmldom/xmldom';

export const XMP_NAMESPACES = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dc: 'http://purl.org/dc/elements/1.1/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  pdf: 'http://ns.adobe.com/pdf/1.3/',
  pdfaid: 'http://www.aiim.org/pdfa/ns/id/',
  pdfuaid: 'http://www.aiim.org/pdfua/ns/id/',
  xmpMM: 'http://ns.adobe.com/xap/1.0/mm/',
  pdfaExtension: 'http://www.aiim.org/pdfa/ns/extension/',
} as const;

export interface XmpProperty {
  readonly namespace: string;
  /** The prefix the file used, for messages. */
  readonly prefix: string;
  readonly name: string;
  /** A simple property's text; for an rdf:Alt, its x-default item (else its first); for Seq/Bag, the items joined by "; ". */
  readonly text: string;
  /** The items of an rdf:Alt, rdf:Seq or rdf:Bag; empty for a simple property. */
  readonly items: readonly string[];
  /** Where it was written: as an attribute of rdf:Description or as an element. */
  readonly form: 'attribute' | 'element';
}

export type XmpPacket =
  | { readonly wellFormed: true; readonly properties: readonly XmpProperty[]; get(namespace: string, name: string): XmpProperty | undefined }
  | { readonly wellFormed: false; readonly error: string };

export function parseXmp(bytes: Uint8Array): XmpPacket {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { wellFormed: false, error: 'the packet is not valid UTF-8' };
  }
  const parsed = parseStrictXml(text);
  if (!parsed.ok) return { wellFormed: false, error: parsed.error };
  const properties = [...descriptions(parsed.root)].flatMap(propertiesOf);
  return {
    wellFormed: true,
    properties,
    get: (namespace, name) => properties.find((p) => p.namespace === namespace && p.name === name),
  };
}

/**
 * An XML document parsed strictly: every error a parser may recover from
 * counts, because a validator must not accept what a stricter reader would
 * refuse. Shared with the PDF/A rules' tree view (pdfa/xmp-tree.ts).
 */
export function parseStrictXml(text: string): { readonly ok: true; readonly root: Node } | { readonly ok: false; readonly error: string } {
  try {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    });
    return { ok: true, root: parser.parseFromString(text.replace(/^\uFEFF/, ''), 'text/xml') };
  } catch (error) {
    return { ok: false, error: (error as Error).message.split('\n')[0]!.slice(0, 200) };
  }
}

function* descriptions(node: Node): Generator<Element> {
  for (let child = node.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType !== 1) continue;
    const element = child as Element;
    if (element.namespaceURI === XMP_NAMESPACES.rdf && element.localName === 'Description') yield element;
    else yield* descriptions(element);
  }
}

function propertiesOf(description: Element): XmpProperty[] {
  const found: XmpProperty[] = [];
  for (let i = 0; i < description.attributes.length; i++) {
    const attribute = description.attributes.item(i)!;
    const namespace = attribute.namespaceURI;
    if (namespace === null || namespace === XMP_NAMESPACES.rdf || namespace === 'http://www.w3.org/2000/xmlns/') continue;
    found.push({ namespace, prefix: attribute.prefix ?? '', name: attribute.localName ?? attribute.name, text: attribute.value, items: [], form: 'attribute' });
  }
  for (let child = description.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType !== 1) continue;
    const element = child as Element;
    if (element.namespaceURI === null) continue;
    const items = containerItems(element);
    const text = items.length > 0 ? (items.find((item) => item.lang === 'x-default') ?? items[0]!).text : (element.textContent ?? '').trim();
    const all = items.map((item) => item.text);
    found.push({
      namespace: element.namespaceURI,
      prefix: element.prefix ?? '',
      name: element.localName ?? element.nodeName,
      text: items.length > 1 && !items.some((item) => item.lang !== undefined) ? all.join('; ') : text,
      items: all,
      form: 'element',
    });
  }
  return found;
}

/** The rdf:li items of an rdf:Alt/Seq/Bag directly inside `element`, with their xml:lang. */
function containerItems(element: Element): { text: string; lang: string | undefined }[] {
  for (let child = element.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType !== 1) continue;
    const container = child as Element;
    if (container.namespaceURI !== XMP_NAMESPACES.rdf || !['Alt', 'Seq', 'Bag'].includes(container.localName ?? '')) continue;
    const items: { text: string; lang: string | undefined }[] = [];
    for (let li = container.firstChild; li !== null; li = li.nextSibling) {
      if (li.nodeType !== 1) continue;
      const item = li as Element;
      if (item.namespaceURI !== XMP_NAMESPACES.rdf || item.localName !== 'li') continue;
      const lang = item.getAttribute('xml:lang');
      items.push({ text: (item.textContent ?? '').trim(), lang: lang === null || lang === '' ? undefined : lang });
    }
    return items;
  }
  return [];
}
