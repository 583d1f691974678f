// One XMP metadata stream as the PDF/A metadata rules read it: its bytes
// (the xpacket header's `bytes` and `encoding` attributes are forbidden,
// ISO 19005-1 §6.7.5 and 19005-2 §6.6.2.1), whether it is well-formed UTF-8
// XML, its property tree (xmp-tree.ts), and the schemas its extension schema
// container adds to the ones the part predefines (xmp-schemas.ts).
import type { PdfStream } from '../../untrusted/pdf-values.js';
import { parseXmpTree, type XmpNode } from './xmp-tree.js';
import { NS, SchemaSet } from './xmp-schemas.js';
import type { PdfaPart } from './document.js';

export interface MetadataPacket {
  readonly stream: PdfStream;
  /** The stream's bytes could be decoded (a filter we read). */
  readonly decoded: boolean;
  readonly text: string;
  readonly validUtf8: boolean;
  readonly xpacketAttributes: { readonly bytes: boolean; readonly encoding: boolean };
  readonly wellFormed: boolean;
  readonly error?: string;
  readonly properties: readonly XmpNode[];
  readonly schemas: SchemaSet;
  /** pdfaExtension:schemas nodes (each a Bag of schema structs, as written). */
  readonly extensionContainers: readonly XmpNode[];
}

export function readPacket(stream: PdfStream, part: PdfaPart): MetadataPacket {
  const bytes = stream.decoded();
  const schemas = new SchemaSet(part);
  if (bytes === undefined) {
    return { stream, decoded: false, text: '', validUtf8: false, xpacketAttributes: { bytes: false, encoding: false }, wellFormed: false, error: 'the stream could not be decoded', properties: [], schemas, extensionContainers: [] };
  }
  let text: string;
  let validUtf8 = true;
  const utf32 = utf32Text(bytes);
  const utf16 = utf32 === undefined ? utf16Encoding(bytes) : undefined;
  if (utf32 !== undefined) {
    validUtf8 = false;
    text = utf32;
  } else if (utf16 !== undefined) {
    // XMP may be UTF-16 (XMP 2005 part 3 §1.1.2): PDF/A-1 allows it, PDF/A-2 and 3 ask for UTF-8 (6.6.2.1-5).
    validUtf8 = false;
    text = new TextDecoder(utf16).decode(bytes);
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      validUtf8 = false;
      text = new TextDecoder('utf-8').decode(bytes);
    }
  }
  const header = /<\?xpacket\s(?![^?]*\bend\s*=)[\s\S]*?\?>/.exec(text)?.[0] ?? '';
  const xpacketAttributes = { bytes: /\sbytes\s*=/.test(header), encoding: /\sencoding\s*=/.test(header) };
  const tree = parseXmpTree(text);
  if (!tree.ok) return { stream, decoded: true, text, validUtf8, xpacketAttributes, wellFormed: false, error: tree.error, properties: [], schemas, extensionContainers: [] };
  const extensionContainers = tree.properties.filter((p) => p.namespace === NS.pdfaExtension && p.name === 'schemas');
  for (const container of extensionContainers) register(container, schemas);
  return { stream, decoded: true, text, validUtf8, xpacketAttributes, wellFormed: true, properties: tree.properties, schemas, extensionContainers };
}

function field(node: XmpNode, namespace: string, name: string): XmpNode | undefined {
  return node.children.find((child) => child.namespace === namespace && child.name === name);
}

/** The properties and value types an extension schema container defines. */
function register(container: XmpNode, schemas: SchemaSet): void {
  if (container.kind !== 'array') return;
  for (const schema of container.children) {
    const namespace = field(schema, NS.pdfaSchema, 'namespaceURI')?.value;
    if (namespace === undefined) continue;
    for (const valueType of field(schema, NS.pdfaSchema, 'valueType')?.children ?? []) {
      const type = field(valueType, NS.pdfaType, 'type')?.value;
      const typeNamespace = field(valueType, NS.pdfaType, 'namespaceURI')?.value;
      const fields = new Map<string, string>();
      for (const f of field(valueType, NS.pdfaType, 'field')?.children ?? []) {
        const name = field(f, NS.pdfaField, 'name')?.value;
        const fieldType = field(f, NS.pdfaField, 'valueType')?.value;
        if (name !== undefined && fieldType !== undefined) fields.set(name, fieldType);
      }
      if (type !== undefined && typeNamespace !== undefined) schemas.defineStruct(type, typeNamespace, fields);
    }
    for (const property of field(schema, NS.pdfaSchema, 'property')?.children ?? []) {
      const name = field(property, NS.pdfaProperty, 'name')?.value;
      const type = field(property, NS.pdfaProperty, 'valueType')?.value;
      if (name !== undefined && type !== undefined) schemas.defineProperty(namespace, name, type);
    }
  }
}

/** UTF-32 (XMP 2005 part 3 §1.1.2 allows it too), told by its byte-order mark or by "<" as 00 00 00 3C / 3C 00 00 00; undefined for anything else. */
function utf32Text(bytes: Uint8Array): string | undefined {
  const be = (bytes[0] === 0 && bytes[1] === 0 && ((bytes[2] === 0xfe && bytes[3] === 0xff) || (bytes[2] === 0 && bytes[3] !== 0)));
  const le = (bytes[2] === 0 && bytes[3] === 0 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] !== 0 && bytes[1] === 0)));
  if (!be && !le) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength - (bytes.byteLength % 4));
  let out = '';
  for (let i = 0; i + 4 <= view.byteLength; i += 4) {
    const code = view.getUint32(i, le);
    if (code > 0x10ffff) return undefined;
    if (code !== 0xfeff) out += String.fromCodePoint(code);
  }
  return out;
}

/** UTF-16 told by its byte-order mark or by the zero byte beside the first character ("<" is 0x3C). */
function utf16Encoding(bytes: Uint8Array): 'utf-16be' | 'utf-16le' | undefined {
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0 && bytes[1] !== 0)) return 'utf-16be';
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] !== 0 && bytes[1] === 0)) return 'utf-16le';
  return undefined;
}
