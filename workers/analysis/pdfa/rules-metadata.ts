// Metadata (ISO 19005-1 §6.7, 19005-2 §6.6): the catalog's XMP packet, its
// serialisation, the PDF/A identification, every property predefined or
// defined by an extension schema and of its type, the extension schemas'
// own shape, and (part 1) the document information dictionary agreeing with
// the XMP.
import type { Violation } from '../rules.js';
import type { PdfaDocument } from './document.js';
import { at, type PdfaRule } from './rule.js';
import type { MetadataPacket } from './xmp-packet.js';
import { NS } from './xmp-schemas.js';
import type { XmpNode } from './xmp-tree.js';

function packets(d: PdfaDocument): MetadataPacket[] {
  return d.metadata === null ? d.otherPackets : [d.metadata, ...d.otherPackets];
}

function identification(d: PdfaDocument): XmpNode[] {
  return d.metadata?.properties.filter((p) => p.namespace === NS.pdfaid) ?? [];
}

function* undefinedProperties(d: PdfaDocument): Generator<Violation> {
  const main = d.metadata?.schemas;
  for (const packet of packets(d)) {
    for (const property of packet.properties) {
      if (property.namespace === NS.pdfaExtension) continue;
      if (packet.schemas.typeOf(property.namespace, property.name) === undefined && main?.typeOf(property.namespace, property.name) === undefined) {
        yield at(`${property.prefix}:${property.name} (${property.namespace})`);
      }
    }
  }
}

function* wrongTypes(d: PdfaDocument): Generator<Violation> {
  const main = d.metadata?.schemas;
  for (const packet of packets(d)) {
    for (const property of packet.properties) {
      if (property.namespace === NS.pdfaExtension) continue;
      const own = packet.schemas.typeOf(property.namespace, property.name);
      const schemas = own !== undefined ? packet.schemas : main;
      const type = own ?? main?.typeOf(property.namespace, property.name);
      if (type === undefined || schemas === undefined) continue;
      if (schemas.isKnownType(type) && !schemas.validates(property, type)) yield at(`${property.prefix}:${property.name} is not a ${type}`);
    }
  }
}

/** Extension schema objects: the container, each schema, property, value type and field, with the prefix each must use. */
const EXTENSION_FIELDS: Record<string, { namespace: string; prefix: string; fields: Record<string, 'text' | 'uri' | 'seq' | 'category'> }> = {
  schema: { namespace: NS.pdfaSchema, prefix: 'pdfaSchema', fields: { schema: 'text', namespaceURI: 'uri', prefix: 'text', property: 'seq', valueType: 'seq' } },
  property: { namespace: NS.pdfaProperty, prefix: 'pdfaProperty', fields: { name: 'text', valueType: 'text', category: 'category', description: 'text' } },
  valueType: { namespace: NS.pdfaType, prefix: 'pdfaType', fields: { type: 'text', namespaceURI: 'uri', prefix: 'text', description: 'text', field: 'seq' } },
  field: { namespace: NS.pdfaField, prefix: 'pdfaField', fields: { name: 'text', valueType: 'text', description: 'text' } },
};

interface ExtensionProblem {
  /** 'undefined-field' | 'container' | `${object}.${field}` */
  readonly kind: string;
  readonly sample: string;
}

function* extensionProblems(d: PdfaDocument): Generator<ExtensionProblem> {
  for (const packet of packets(d)) {
    for (const container of packet.extensionContainers) {
      if (container.kind !== 'array' || container.arrayType !== 'Bag' || container.prefix !== 'pdfaExtension') yield { kind: 'container', sample: `${container.prefix}:schemas` };
      if (container.kind !== 'array') continue;
      for (const schema of container.children) yield* extensionObject(schema, 'schema');
    }
  }
}

function* extensionObject(node: XmpNode, object: keyof typeof EXTENSION_FIELDS): Generator<ExtensionProblem> {
  const spec = EXTENSION_FIELDS[object]!;
  for (const child of node.children) {
    if (child.namespace !== spec.namespace || !(child.name in spec.fields)) yield { kind: 'undefined-field', sample: `${child.prefix}:${child.name} in a pdfa ${object}` };
  }
  for (const [name, kind] of Object.entries(spec.fields)) {
    const child = node.children.find((c) => c.namespace === spec.namespace && c.name === name);
    // pdfaSchema:property and valueType may be absent; a value type without pdfaType:field is not (veraPDF's 6.6.2.3.3-15 fails it).
    const required = kind !== 'seq' || (object === 'valueType' && name === 'field');
    if (child === undefined) {
      if (required) yield { kind: `${object}.${name}`, sample: `a pdfa ${object} without ${spec.prefix}:${name}` };
      continue;
    }
    const valid =
      kind === 'seq'
        ? child.kind === 'array' && child.arrayType === 'Seq'
        : kind === 'category'
          ? child.kind === 'simple' && (child.value === 'internal' || child.value === 'external')
          : child.kind === 'simple';
    if (!valid || child.prefix !== spec.prefix) yield { kind: `${object}.${name}`, sample: `${child.prefix}:${name} in a pdfa ${object}` };
    if (kind === 'seq' && child.kind === 'array') {
      const inner = object === 'schema' ? (name === 'property' ? 'property' : 'valueType') : 'field';
      for (const item of child.children) yield* extensionObject(item, inner);
    }
  }
}

function extensionRule(ids: { 1: string; 2: string }, kind: string, description: string): PdfaRule {
  return {
    ids,
    description,
    *check(d) {
      for (const problem of extensionProblems(d)) if (problem.kind === kind) yield at(problem.sample);
    },
  };
}

/** PDF date (§7.9.4) and XMP date as the instant they name; undefined when either cannot be read. */
function pdfDate(text: string): number | undefined {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?'?$/.exec(text.trim());
  if (m === null) return undefined;
  const utc = Date.UTC(+m[1]!, +(m[2] ?? 1) - 1, +(m[3] ?? 1), +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  const sign = m[7] === '-' ? -1 : m[7] === '+' ? 1 : 0;
  return utc - sign * (+(m[8] ?? 0) * 60 + +(m[9] ?? 0)) * 60_000;
}

function xmpDate(text: string): number | undefined {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/.exec(text.trim());
  if (m === null) return undefined;
  const utc = Date.UTC(+m[1]!, +(m[2] ?? 1) - 1, +(m[3] ?? 1), +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  const zone = m[7];
  if (zone === undefined || zone === 'Z') return utc;
  const sign = zone[0] === '-' ? -1 : 1;
  return utc - sign * (+zone.slice(1, 3) * 60 + +zone.slice(4, 6)) * 60_000;
}

function xmpProperty(d: PdfaDocument, namespace: string, name: string): XmpNode | undefined {
  return d.metadata?.properties.find((p) => p.namespace === namespace && p.name === name);
}

function xmpText(node: XmpNode | undefined): string | undefined {
  if (node === undefined) return undefined;
  if (node.kind === 'simple') return node.value;
  if (node.kind === 'array') {
    const item = node.children.find((c) => c.lang === 'x-default') ?? node.children[0];
    return item?.value;
  }
  return undefined;
}

/**
 * ISO 19005-1 asks for the Info dictionary's agreement with the XMP in 6.1.5
 * (Document information dictionary) as well as in 6.7.3, where veraPDF's
 * profile numbers the rules; its corpus files the tests under 6.1.5.
 */
const INFO_ALSO_STATED_IN = { 1: ['6.1.5'] } as const;

function infoRule(id: string, key: string, namespace: string, name: string, description: string, single = false): PdfaRule {
  return {
    ids: { 1: id },
    alsoStatedIn: INFO_ALSO_STATED_IN,
    description,
    *check(d) {
      const info = d.pdf.dict(d.pdf.trailer.get('Info'));
      const entry = info?.get(key);
      if (entry === undefined) return;
      const value = d.pdf.text(entry);
      // A value that is no string (veraPDF corpus 6-1-5-t01-fail-j: an indirect dictionary) cannot equal the XMP's.
      if (value === undefined) {
        const resolved = d.pdf.resolve(entry);
        if (resolved !== null && resolved !== undefined) yield at(`Info ${key} is not a string`);
        return;
      }
      const node = xmpProperty(d, namespace, name);
      const text = xmpText(node);
      if (text !== value || (single && node?.kind === 'array' && node.children.length !== 1)) yield at(`Info ${key} "${value.slice(0, 80)}", XMP ${name} "${(text ?? 'missing').slice(0, 80)}"`);
    },
  };
}

function dateRule(id: string, key: string, name: string): PdfaRule {
  return {
    ids: { 1: id },
    alsoStatedIn: INFO_ALSO_STATED_IN,
    description: `The Info ${key} shall equal xmp:${name}`,
    *check(d) {
      const info = d.pdf.dict(d.pdf.trailer.get('Info'));
      const value = d.pdf.text(info?.get(key));
      if (value === undefined) return;
      const xmp = xmpText(xmpProperty(d, NS.xmp, name));
      const a = pdfDate(value);
      const b = xmp === undefined ? undefined : xmpDate(xmp);
      if (xmp === undefined || (a !== undefined && b !== undefined && a !== b)) yield at(`Info ${key} ${value}, xmp:${name} ${xmp ?? 'missing'}`);
    },
  };
}

export const METADATA_RULES: readonly PdfaRule[] = [
  {
    ids: { 1: '6.7.2-1', 2: '6.6.2.1-1' },
    description: 'The catalog shall have a Metadata stream',
    *check(d) {
      if (d.metadata === null) yield at('no Metadata in the catalog');
    },
  },
  {
    ids: { 1: '6.7.2-2' },
    description: 'The catalog\'s metadata stream shall not be filtered',
    *check(d) {
      if (d.metadata?.stream.dict.has('Filter') === true) yield at('Filter on the catalog metadata');
    },
  },
  {
    ids: { 1: '6.7.5-1', 2: '6.6.2.1-2' },
    description: 'The xpacket header shall not have a bytes attribute',
    *check(d) {
      for (const p of packets(d)) if (p.xpacketAttributes.bytes) yield at('bytes attribute');
    },
  },
  {
    ids: { 1: '6.7.5-2', 2: '6.6.2.1-3' },
    description: 'The xpacket header shall not have an encoding attribute',
    *check(d) {
      for (const p of packets(d)) if (p.xpacketAttributes.encoding) yield at('encoding attribute');
    },
  },
  {
    ids: { 1: '6.7.9-1', 2: '6.6.2.1-4' },
    description: 'The metadata shall be well-formed XMP',
    *check(d) {
      for (const p of packets(d)) if (!p.wellFormed || (d.part !== 1 && p.decoded && !p.validUtf8)) yield at(p.error ?? 'not well-formed UTF-8');
    },
  },
  {
    ids: { 2: '6.6.2.1-5' },
    description: 'The metadata shall be encoded as UTF-8',
    *check(d) {
      for (const p of packets(d)) if (p.decoded && !p.validUtf8) yield at('not UTF-8');
    },
  },
  // ISO 19005-1 states these two in 6.7.2 (Properties), where veraPDF's
  // corpus files their tests ("clause 6-7-2" in each file's outline); its
  // profile numbers them 6.7.9-2 and -3.
  {
    ids: { 1: '6.7.9-2', 2: '6.6.2.3.1-1' },
    alsoStatedIn: { 1: ['6.7.2'] },
    description: 'Every XMP property shall be predefined by the XMP specification or PDF/A, or defined by an extension schema',
    check: undefinedProperties,
  },
  {
    ids: { 1: '6.7.9-3', 2: '6.6.2.3.1-2' },
    alsoStatedIn: { 1: ['6.7.2'] },
    description: 'Every XMP property shall have a value of its type',
    check: wrongTypes,
  },
  {
    ids: { 1: '6.7.8-1', 2: '6.6.2.3.2-1' },
    description: 'Extension schema objects shall contain only the fields their schema defines',
    *check(d) {
      for (const problem of extensionProblems(d)) if (problem.kind === 'undefined-field') yield at(problem.sample);
    },
  },
  extensionRule({ 1: '6.7.8-2', 2: '6.6.2.3.3-1' }, 'container', 'pdfaExtension:schemas shall be a Bag, with the prefix pdfaExtension'),
  extensionRule({ 1: '6.7.8-3', 2: '6.6.2.3.3-2' }, 'schema.schema', 'pdfaSchema:schema shall be Text, with the prefix pdfaSchema'),
  extensionRule({ 1: '6.7.8-4', 2: '6.6.2.3.3-3' }, 'schema.namespaceURI', 'pdfaSchema:namespaceURI shall be a URI, with the prefix pdfaSchema'),
  extensionRule({ 1: '6.7.8-5', 2: '6.6.2.3.3-4' }, 'schema.prefix', 'pdfaSchema:prefix shall be Text, with the prefix pdfaSchema'),
  extensionRule({ 1: '6.7.8-6', 2: '6.6.2.3.3-5' }, 'schema.property', 'pdfaSchema:property shall be a Seq, with the prefix pdfaSchema'),
  extensionRule({ 1: '6.7.8-7', 2: '6.6.2.3.3-6' }, 'schema.valueType', 'pdfaSchema:valueType shall be a Seq, with the prefix pdfaSchema'),
  extensionRule({ 1: '6.7.8-8', 2: '6.6.2.3.3-7' }, 'property.name', 'pdfaProperty:name shall be Text, with the prefix pdfaProperty'),
  extensionRule({ 1: '6.7.8-9', 2: '6.6.2.3.3-8' }, 'property.valueType', 'pdfaProperty:valueType shall be Text naming a defined type, with the prefix pdfaProperty'),
  extensionRule({ 1: '6.7.8-10', 2: '6.6.2.3.3-9' }, 'property.category', 'pdfaProperty:category shall be internal or external, with the prefix pdfaProperty'),
  extensionRule({ 1: '6.7.8-11', 2: '6.6.2.3.3-10' }, 'property.description', 'pdfaProperty:description shall be Text, with the prefix pdfaProperty'),
  extensionRule({ 1: '6.7.8-12', 2: '6.6.2.3.3-11' }, 'valueType.type', 'pdfaType:type shall be Text, with the prefix pdfaType'),
  extensionRule({ 1: '6.7.8-13', 2: '6.6.2.3.3-12' }, 'valueType.namespaceURI', 'pdfaType:namespaceURI shall be a URI, with the prefix pdfaType'),
  extensionRule({ 1: '6.7.8-14', 2: '6.6.2.3.3-13' }, 'valueType.prefix', 'pdfaType:prefix shall be Text, with the prefix pdfaType'),
  extensionRule({ 1: '6.7.8-15', 2: '6.6.2.3.3-14' }, 'valueType.description', 'pdfaType:description shall be Text, with the prefix pdfaType'),
  extensionRule({ 1: '6.7.8-16', 2: '6.6.2.3.3-15' }, 'valueType.field', 'pdfaType:field shall be a Seq, with the prefix pdfaType'),
  extensionRule({ 1: '6.7.8-17', 2: '6.6.2.3.3-16' }, 'field.name', 'pdfaField:name shall be Text, with the prefix pdfaField'),
  extensionRule({ 1: '6.7.8-18', 2: '6.6.2.3.3-17' }, 'field.valueType', 'pdfaField:valueType shall be Text naming a defined type, with the prefix pdfaField'),
  extensionRule({ 1: '6.7.8-19', 2: '6.6.2.3.3-18' }, 'field.description', 'pdfaField:description shall be Text, with the prefix pdfaField'),
  {
    ids: { 1: '6.7.11-1', 2: '6.6.4-1' },
    description: 'The metadata shall identify the PDF/A part and conformance (pdfaid:part, pdfaid:conformance)',
    *check(d) {
      const id = identification(d);
      if (!id.some((p) => p.name === 'part') || !id.some((p) => p.name === 'conformance')) yield at('no pdfaid:part and pdfaid:conformance');
    },
  },
  {
    ids: { 1: '6.7.11-2', 2: '6.6.4-2' },
    description: 'pdfaid:part shall be the part validated against',
    *check(d) {
      const part = identification(d).find((p) => p.name === 'part');
      if (part !== undefined && part.value.trim() !== String(d.part)) yield at(`pdfaid:part ${part.value}`);
    },
  },
  {
    ids: { 1: '6.7.11-3', 2: '6.6.4-3' },
    description: 'pdfaid:conformance shall be a level of the part (A or B; PDF/A-2 and 3 also U; level U: U or A; level A: A)',
    *check(d) {
      const conformance = identification(d).find((p) => p.name === 'conformance');
      if (conformance === undefined) return;
      const allowed = d.level === 'a' ? ['A'] : d.part === 1 ? ['A', 'B'] : d.level === 'u' ? ['U', 'A'] : ['A', 'B', 'U'];
      if (!allowed.includes(conformance.value.trim())) yield at(`pdfaid:conformance ${conformance.value}`);
    },
  },
  ...(['part', 'conformance', 'amd'] as const).map(
    (name, i): PdfaRule => ({
      ids: { 1: `6.7.11-${4 + i}`, 2: `6.6.4-${4 + i}` },
      description: `pdfaid:${name} shall use the prefix pdfaid`,
      *check(d) {
        for (const p of identification(d)) if (p.name === name && p.prefix !== 'pdfaid') yield at(`${p.prefix}:${name}`);
      },
    }),
  ),
  {
    ids: { 2: '6.6.4-7' },
    description: 'pdfaid:corr shall use the prefix pdfaid',
    *check(d) {
      for (const p of identification(d)) if (p.name === 'corr' && p.prefix !== 'pdfaid') yield at(`${p.prefix}:corr`);
    },
  },
  dateRule('6.7.3-1', 'CreationDate', 'CreateDate'),
  infoRule('6.7.3-2', 'Title', NS.dc, 'title', 'The Info Title shall equal dc:title'),
  infoRule('6.7.3-3', 'Author', NS.dc, 'creator', 'The Info Author shall equal dc:creator, a single entry', true),
  infoRule('6.7.3-4', 'Subject', NS.dc, 'description', 'The Info Subject shall equal dc:description'),
  infoRule('6.7.3-5', 'Keywords', NS.pdf, 'Keywords', 'The Info Keywords shall equal pdf:Keywords'),
  infoRule('6.7.3-6', 'Creator', NS.xmp, 'CreatorTool', 'The Info Creator shall equal xmp:CreatorTool'),
  infoRule('6.7.3-7', 'Producer', NS.pdf, 'Producer', 'The Info Producer shall equal pdf:Producer'),
  dateRule('6.7.3-8', 'ModDate', 'ModifyDate'),
];
