// Everything in a PDF that acts rather than shows: actions (ISO 32000-1
// 12.6) that run JavaScript, start programs, open addresses, send or import
// form data, or open other files; embedded files (7.11.4); XFA forms
// (12.7.8); RichMedia (Adobe Supplement, ExtensionLevel 3). Two walks:
// first from every place a viewer looks for something to do (OpenAction,
// the catalog's, pages', annotations' and fields' /AA, the JavaScript and
// EmbeddedFiles name trees, link and bookmark /A), which says when each
// thing runs; then over every object in the file, those inside object
// streams included, so an action nothing seems to reach (pdfid's blind spot
// when it hides in a compressed object stream) is still reported.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfDict, PdfStream, type PdfValue } from '../../untrusted/pdf-values.js';

export type ActiveKind =
  | 'javascript'
  | 'launch'
  | 'uri'
  | 'submit-form'
  | 'import-data'
  | 'goto-remote'
  | 'goto-embedded'
  | 'embedded-file'
  | 'xfa'
  | 'rich-media';

export interface ActiveItem {
  readonly kind: ActiveKind;
  /** When it acts: `OpenAction`, `AA/O` (an additional-action event), `A` (activated), `named` (document-level script), or null (nothing reaches it). */
  readonly trigger: string | null;
  /** Where: `document`, `page 2`, `Link annotation on page 1`, `field "total"`, `bookmark "Intro"`, or `object 12` when no trigger reaches it. */
  readonly location: string;
  /** The indirect object holding it, when known. */
  readonly object: number | null;
  /** That object is stored inside a compressed object stream (invisible to a plain-text search of the file). */
  readonly in_object_stream: boolean;
  /** What it does, in words. */
  readonly detail: string;
  /** The start of its script, address or file name. */
  readonly sample?: string;
}

const ACTION_KINDS: Readonly<Record<string, ActiveKind>> = {
  JavaScript: 'javascript',
  Launch: 'launch',
  URI: 'uri',
  SubmitForm: 'submit-form',
  ImportData: 'import-data',
  GoToR: 'goto-remote',
  GoToE: 'goto-embedded',
  RichMediaExecute: 'rich-media',
};

/** Bounds on the walks: hostile files nest and loop. */
const MAX_DEPTH = 12;
const MAX_ITEMS = 1000;
const MAX_TREE_NODES = 100_000;
const SAMPLE = 200;

export function findActiveContent(objects: PdfObjects, compressed: ReadonlySet<number>): ActiveItem[] {
  const items: ActiveItem[] = [];
  const byDict = new Map<PdfDict | PdfStream, number>();
  const record = (holder: PdfDict | PdfStream, item: Omit<ActiveItem, 'in_object_stream'>): void => {
    if (byDict.has(holder) || items.length >= MAX_ITEMS) return;
    byDict.set(holder, items.length);
    items.push({ ...item, in_object_stream: item.object !== null && compressed.has(item.object) });
  };

  const action = (value: PdfValue | undefined, trigger: string, location: string, depth = 0): void => {
    const dict = objects.dict(value);
    if (dict === undefined || depth > MAX_DEPTH) return;
    const kind = ACTION_KINDS[dict.name('S') ?? ''];
    if (kind !== undefined) record(dict, { kind, trigger, location, object: dict.ref?.num ?? null, ...describeAction(objects, kind, dict) });
    const next = objects.resolve(dict.get('Next'));
    for (const follow of Array.isArray(next) ? next : [next]) if (follow !== undefined) action(follow, trigger, location, depth + 1);
  };
  const additional = (holder: PdfDict | undefined, location: string): void => {
    const aa = objects.dict(holder?.get('AA'));
    for (const [event, value] of aa?.entries ?? []) action(value, `AA/${event}`, location);
  };
  const fileSpec = (value: PdfValue | undefined, trigger: string | null, location: string): void => {
    const spec = objects.dict(value);
    if (spec === undefined) return;
    const ef = objects.dict(spec.get('EF'));
    const stream = objects.stream(ef?.get('UF') ?? ef?.get('F'));
    if (stream === undefined) return;
    const name = objects.text(spec.get('UF')) ?? objects.text(spec.get('F')) ?? 'unnamed';
    record(stream, { kind: 'embedded-file', trigger, location, object: stream.ref?.num ?? spec.ref?.num ?? null, ...describeFile(objects, stream, name) });
  };

  const catalog = objects.catalog;
  if (catalog !== undefined) {
    const open = objects.resolve(catalog.get('OpenAction'));
    if (open instanceof PdfDict) action(open, 'OpenAction', 'document');
    additional(catalog, 'document');
    const names = objects.dict(catalog.get('Names'));
    nameTree(objects, names?.get('JavaScript'), (name, value) => action(value, 'named', `document (script "${name}")`));
    nameTree(objects, names?.get('EmbeddedFiles'), (_name, value) => fileSpec(value, null, 'document (EmbeddedFiles)'));
    const form = objects.dict(catalog.get('AcroForm'));
    if (form?.has('XFA')) {
      record(form, { kind: 'xfa', trigger: null, location: 'document (AcroForm)', object: form.ref?.num ?? catalog.ref?.num ?? null, detail: 'an XFA form: XML that Adobe readers render in place of the page content, with scripts of its own' });
    }
    walkFields(objects, objects.array(form?.get('Fields')) ?? [], (field, name) => {
      additional(field, `field "${name}"`);
      action(field.get('A'), 'A', `field "${name}"`);
    });
    walkOutline(objects, objects.dict(catalog.get('Outlines')), (item, title) => action(item.get('A'), 'A', `bookmark "${title}"`));
  }
  for (const page of objects.pages) {
    const where = `page ${page.index + 1}`;
    additional(page.dict, where);
    for (const entry of objects.array(page.dict.get('Annots')) ?? []) {
      const annotation = objects.dict(entry);
      if (annotation === undefined) continue;
      const subtype = annotation.name('Subtype') ?? 'unknown';
      const at = `${subtype} annotation on ${where}`;
      action(annotation.get('A'), 'A', at);
      additional(annotation, at);
      if (subtype === 'FileAttachment') fileSpec(annotation.get('FS'), 'A', at);
      if (subtype === 'RichMedia') record(annotation, { kind: 'rich-media', trigger: 'A', location: at, object: annotation.ref?.num ?? null, detail: 'a RichMedia annotation: Flash or video content played by the viewer' });
    }
  }

  // Everything else in the file, those in object streams included.
  for (const ref of objects.refs()) {
    if (items.length >= MAX_ITEMS) break;
    scan(objects.resolve(ref), ref.num, 0, new Set());
  }
  function scan(value: PdfValue | undefined, object: number, depth: number, seen: Set<unknown>): void {
    if (depth > MAX_DEPTH || value === undefined || value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) scan(item, object, depth + 1, seen);
      return;
    }
    if (value instanceof PdfStream) {
      if (value.dict.name('Type') === 'EmbeddedFile') record(value, { kind: 'embedded-file', trigger: null, location: `object ${object}`, object, ...describeFile(objects, value, 'unnamed') });
      scan(value.dict, object, depth + 1, seen);
      return;
    }
    if (!(value instanceof PdfDict)) return;
    const known = byDict.get(value);
    if (known !== undefined) {
      const item = items[known] as ActiveItem;
      if (item.object === null) items[known] = { ...item, object, in_object_stream: compressed.has(object) };
    } else {
      const kind = ACTION_KINDS[value.name('S') ?? ''];
      if (kind !== undefined) record(value, { kind, trigger: null, location: `object ${object}`, object, ...describeAction(objects, kind, value) });
      else if (value.name('Subtype') === 'RichMedia') record(value, { kind: 'rich-media', trigger: null, location: `object ${object}`, object, detail: 'a RichMedia annotation: Flash or video content played by the viewer' });
      else if (value.has('XFA') && value.has('Fields')) record(value, { kind: 'xfa', trigger: null, location: `object ${object}`, object, detail: 'an XFA form: XML that Adobe readers render in place of the page content, with scripts of its own' });
    }
    for (const [key, entry] of value.entries) {
      // References are objects of their own, scanned in their turn; /Parent and /P point back up.
      if (key !== 'Parent' && key !== 'P') scan(entry, object, depth + 1, seen);
    }
  }
  return items;
}

function describeAction(objects: PdfObjects, kind: ActiveKind, dict: PdfDict): { detail: string; sample?: string } {
  const file = fileName(objects, dict.get('F'));
  switch (kind) {
    case 'javascript': {
      const js = script(objects, dict.get('JS'));
      return { detail: `runs JavaScript in the viewer (${js.length} characters)`, sample: js.slice(0, SAMPLE) };
    }
    case 'launch': {
      const win = objects.dict(dict.get('Win'));
      const target = objects.text(win?.get('F')) ?? file;
      return { detail: 'starts an application or opens a file outside the viewer', ...(target === undefined ? {} : { sample: target.slice(0, SAMPLE) }) };
    }
    case 'uri': {
      const uri = objects.text(dict.get('URI')) ?? '';
      return { detail: 'opens a web address', sample: uri.slice(0, SAMPLE) };
    }
    case 'submit-form':
      return { detail: 'sends the form\'s data to an address', ...(file === undefined ? {} : { sample: file.slice(0, SAMPLE) }) };
    case 'import-data':
      return { detail: 'fills the form from an outside file', ...(file === undefined ? {} : { sample: file.slice(0, SAMPLE) }) };
    case 'goto-remote':
      return { detail: 'opens another PDF file', ...(file === undefined ? {} : { sample: file.slice(0, SAMPLE) }) };
    case 'goto-embedded':
      return { detail: 'opens a PDF embedded in this one' };
    default:
      return { detail: 'plays or runs RichMedia content' };
  }
}

function describeFile(objects: PdfObjects, stream: PdfStream, name: string): { detail: string; sample: string } {
  const size = objects.number(objects.dict(stream.dict.get('Params'))?.get('Size')) ?? stream.decoded()?.byteLength ?? stream.raw.byteLength;
  const type = stream.dict.name('Subtype');
  return { detail: `${size} bytes${type === undefined ? '' : ` of ${type.replace('#2F', '/')}`}, which a reader can save or open`, sample: name.slice(0, SAMPLE) };
}

/** A /JS entry: a text string or a stream (12.6.4.16). */
function script(objects: PdfObjects, value: PdfValue | undefined): string {
  const stream = objects.stream(value);
  if (stream !== undefined) {
    const bytes = stream.decoded();
    return bytes === undefined ? '' : Buffer.from(bytes).toString('latin1');
  }
  return objects.text(value) ?? '';
}

/** A file specification (7.11): a string, or a dictionary's /UF or /F. */
function fileName(objects: PdfObjects, value: PdfValue | undefined): string | undefined {
  const spec = objects.dict(value);
  if (spec !== undefined) return objects.text(spec.get('UF')) ?? objects.text(spec.get('F'));
  return objects.text(value);
}

/** Visits every leaf of a name tree (7.9.6), bounded and loop-safe. */
function nameTree(objects: PdfObjects, root: PdfValue | undefined, visit: (name: string, value: PdfValue) => void): void {
  const seen = new Set<PdfDict>();
  const stack: PdfValue[] = root === undefined ? [] : [root];
  while (stack.length > 0 && seen.size < MAX_TREE_NODES) {
    const node = objects.dict(stack.pop());
    if (node === undefined || seen.has(node)) continue;
    seen.add(node);
    const names = objects.array(node.get('Names')) ?? [];
    for (let i = 0; i + 1 < names.length; i += 2) visit(objects.text(names[i] ?? null) ?? '', names[i + 1] as PdfValue);
    stack.push(...(objects.array(node.get('Kids')) ?? []));
  }
}

function walkFields(objects: PdfObjects, fields: readonly PdfValue[], visit: (field: PdfDict, name: string) => void): void {
  const seen = new Set<PdfDict>();
  const walk = (entry: PdfValue, prefix: string, depth: number): void => {
    const field = objects.dict(entry);
    if (field === undefined || seen.has(field) || depth > 32 || seen.size >= MAX_TREE_NODES) return;
    seen.add(field);
    const partial = objects.text(field.get('T'));
    const name = partial === undefined ? prefix : prefix === '' ? partial : `${prefix}.${partial}`;
    visit(field, name);
    for (const kid of objects.array(field.get('Kids')) ?? []) walk(kid, name, depth + 1);
  };
  for (const field of fields) walk(field, '', 0);
}

function walkOutline(objects: PdfObjects, root: PdfDict | undefined, visit: (item: PdfDict, title: string) => void): void {
  const seen = new Set<PdfDict>();
  const stack: PdfValue[] = root?.get('First') === undefined ? [] : [root.get('First') as PdfValue];
  while (stack.length > 0 && seen.size < MAX_TREE_NODES) {
    const item = objects.dict(stack.pop());
    if (item === undefined || seen.has(item)) continue;
    seen.add(item);
    visit(item, objects.text(item.get('Title')) ?? '');
    for (const key of ['Next', 'First']) if (item.get(key) !== undefined) stack.push(item.get(key) as PdfValue);
  }
}
