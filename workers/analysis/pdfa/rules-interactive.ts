// Interactive features (ISO 19005-1 §6.5, §6.6, §6.9; 19005-2 §6.3-§6.5,
// §6.9-§6.11): annotation types, flags and appearances, actions and their
// triggers, form fields (no NeedAppearances, no XFA), optional content
// configurations, alternate presentations and requirements.
import { PdfDict, PdfStream } from '../../untrusted/pdf-values.js';
import type { PdfaDocument } from './document.js';
import { at, type PdfaRule } from './rule.js';

const ANNOTATIONS_1 = ['Text', 'Link', 'FreeText', 'Line', 'Square', 'Circle', 'Highlight', 'Underline', 'Squiggly', 'StrikeOut', 'Stamp', 'Ink', 'Popup', 'Widget', 'PrinterMark', 'TrapNet'];
const ANNOTATIONS_2 = ['Text', 'Link', 'FreeText', 'Line', 'Square', 'Circle', 'Polygon', 'PolyLine', 'Highlight', 'Underline', 'Squiggly', 'StrikeOut', 'Stamp', 'Caret', 'Ink', 'Popup', 'FileAttachment', 'Widget', 'PrinterMark', 'TrapNet', 'Watermark', 'Redact'];
const ACTIONS_1 = ['GoTo', 'GoToR', 'Thread', 'URI', 'Named', 'SubmitForm'];
const ACTIONS_2 = ['GoTo', 'GoToR', 'GoToE', 'Thread', 'URI', 'Named', 'SubmitForm'];
const NAMED = ['NextPage', 'PrevPage', 'FirstPage', 'LastPage'];

function fieldType(d: PdfaDocument, annotation: PdfDict): string | undefined {
  let node: PdfDict | undefined = annotation;
  for (let i = 0; node !== undefined && i < 32; i++) {
    const ft = node.name('FT');
    if (ft !== undefined) return ft;
    node = d.pdf.dict(node.get('Parent'));
  }
  return undefined;
}

function appearanceKeys(d: PdfaDocument, annotation: PdfDict): string[] | undefined {
  const ap = d.pdf.dict(annotation.get('AP'));
  return ap === undefined ? undefined : [...ap.entries.keys()];
}

export const INTERACTIVE_RULES: readonly PdfaRule[] = [
  {
    ids: { 1: '6.5.2-1', 2: '6.3.1-1' },
    description: 'Annotations shall be of the types PDF/A permits (no 3D, Sound, Movie, Screen, RichMedia; PDF/A-1: no FileAttachment)',
    *check(d) {
      const allowed = d.part === 1 ? ANNOTATIONS_1 : ANNOTATIONS_2;
      for (const a of d.walk.annotations) if (!allowed.includes(a.value.name('Subtype') ?? '')) yield at(a.label, a.page);
    },
  },
  {
    ids: { 1: '6.5.3-1' },
    description: 'An annotation\'s CA shall be 1.0',
    *check(d) {
      for (const a of d.walk.annotations) {
        const ca = d.pdf.number(a.value.get('CA'));
        if (ca !== undefined && ca !== 1) yield at(`${a.label}: CA ${ca}`, a.page);
      }
    },
  },
  {
    ids: { 2: '6.3.2-1' },
    description: 'An annotation other than Popup shall have F',
    *check(d) {
      for (const a of d.walk.annotations) if (a.value.name('Subtype') !== 'Popup' && !a.value.has('F')) yield at(a.label, a.page);
    },
  },
  {
    ids: { 1: '6.5.3-2', 2: '6.3.2-2' },
    description: 'An annotation\'s flags shall set Print and clear Invisible, Hidden and NoView (PDF/A-2 and 3: and ToggleNoView)',
    *check(d) {
      for (const a of d.walk.annotations) {
        const f = d.pdf.number(a.value.get('F'));
        if (f === undefined) {
          if (d.part === 1) yield at(`${a.label}: no F`, a.page);
          continue;
        }
        const bad = (f & 4) !== 4 || (f & 1) !== 0 || (f & 2) !== 0 || (f & 32) !== 0 || (d.part !== 1 && (f & 256) !== 0);
        if (bad) yield at(`${a.label}: F ${f}`, a.page);
      }
    },
  },
  {
    ids: { 1: '6.5.3-3' },
    description: 'An annotation with C or IC needs an RGB output intent',
    *check(d) {
      if (d.outputColourSpace === 'RGB ') return;
      for (const a of d.walk.annotations) if (a.value.has('C') || a.value.has('IC')) yield at(a.label, a.page);
    },
  },
  {
    ids: { 2: '6.3.3-1' },
    description: 'An annotation with a non-zero rectangle (Popup and Link aside) shall have an appearance dictionary',
    *check(d) {
      for (const a of d.walk.annotations) {
        const subtype = a.value.name('Subtype');
        if (subtype === 'Popup' || subtype === 'Link' || a.value.has('AP')) continue;
        const rect = (d.pdf.array(a.value.get('Rect')) ?? []).map((v) => d.pdf.number(v) ?? 0);
        const width = Math.abs((rect[2] ?? 0) - (rect[0] ?? 0));
        const height = Math.abs((rect[3] ?? 0) - (rect[1] ?? 0));
        if (width !== 0 || height !== 0) yield at(a.label, a.page);
      }
    },
  },
  {
    ids: { 1: '6.5.3-4', 2: '6.3.3-2' },
    description: 'An appearance dictionary shall contain only N',
    *check(d) {
      for (const a of d.walk.annotations) {
        const keys = appearanceKeys(d, a.value);
        if (keys !== undefined && (keys.length !== 1 || keys[0] !== 'N')) yield at(`${a.label}: ${keys.join(', ')}`, a.page);
      }
    },
  },
  {
    ids: { 1: '6.5.3-5', 2: '6.3.3-3' },
    description: 'A button widget\'s N appearance shall be a dictionary of appearance states',
    *check(d) {
      for (const a of d.walk.annotations) {
        if (a.value.name('Subtype') !== 'Widget' || fieldType(d, a.value) !== 'Btn') continue;
        const keys = appearanceKeys(d, a.value);
        if (keys === undefined || keys.length !== 1 || keys[0] !== 'N') continue;
        const n = d.pdf.resolve(d.pdf.dict(a.value.get('AP'))?.get('N'));
        if (!(n instanceof PdfDict) || n.entries.size === 0) yield at(a.label, a.page);
      }
    },
  },
  {
    ids: { 1: '6.5.3-6', 2: '6.3.3-4' },
    description: 'An N appearance (button widgets aside) shall be a stream',
    *check(d) {
      for (const a of d.walk.annotations) {
        if (a.value.name('Subtype') === 'Widget' && fieldType(d, a.value) === 'Btn') continue;
        const keys = appearanceKeys(d, a.value);
        if (keys === undefined || keys.length !== 1 || keys[0] !== 'N') continue;
        const n = d.pdf.resolve(d.pdf.dict(a.value.get('AP'))?.get('N'));
        if (!(n instanceof PdfStream)) yield at(a.label, a.page);
      }
    },
  },
  {
    ids: { 1: '6.9-2' },
    description: 'A widget annotation shall have an appearance dictionary',
    *check(d) {
      for (const a of d.walk.annotations) if (a.value.name('Subtype') === 'Widget' && !a.value.has('AP')) yield at(a.label, a.page);
    },
  },
  {
    ids: { 1: '6.6.1-3', 2: '6.4.1-1' },
    description: 'A widget annotation shall not have an action (A; PDF/A-2 and 3: nor AA)',
    *check(d) {
      for (const a of d.walk.annotations) {
        if (a.value.name('Subtype') === 'Widget' && (a.value.has('A') || (d.part !== 1 && a.value.has('AA')))) yield at(a.label, a.page);
      }
    },
  },
  {
    ids: { 1: '6.6.2-1' },
    description: 'A widget annotation shall not have AA',
    *check(d) {
      for (const a of d.walk.annotations) if (a.value.name('Subtype') === 'Widget' && a.value.has('AA')) yield at(a.label, a.page);
    },
  },
  {
    ids: { 1: '6.6.2-2', 2: '6.4.1-2' },
    description: 'A form field shall not have AA',
    *check(d) {
      for (const f of d.walk.fields) if (f.value.has('AA')) yield at(f.label);
    },
  },
  {
    ids: { 1: '6.9-1', 2: '6.4.1-3' },
    description: 'The interactive form\'s NeedAppearances shall be absent or false',
    *check(d) {
      if (d.pdf.dict(d.pdf.catalog?.get('AcroForm'))?.get('NeedAppearances') === true) yield at('NeedAppearances true');
    },
  },
  {
    ids: { 2: '6.4.2-1' },
    description: 'The interactive form shall not contain XFA',
    *check(d) {
      if (d.pdf.dict(d.pdf.catalog?.get('AcroForm'))?.has('XFA') === true) yield at('XFA in AcroForm');
    },
  },
  {
    ids: { 2: '6.4.2-2' },
    description: 'The catalog shall not have NeedsRendering true',
    *check(d) {
      if (d.pdf.catalog?.get('NeedsRendering') === true) yield at('NeedsRendering true');
    },
  },
  {
    ids: { 1: '6.6.1-1', 2: '6.5.1-1' },
    description: 'Actions shall be of the types PDF/A permits (no Launch, Sound, Movie, ResetForm, ImportData, JavaScript, Hide, SetOCGState, Rendition, Trans, GoTo3DView)',
    *check(d) {
      const allowed = d.part === 1 ? ACTIONS_1 : ACTIONS_2;
      for (const a of d.walk.actions) if (!allowed.includes(a.value.name('S') ?? '')) yield at(a.label, a.page);
    },
  },
  {
    ids: { 1: '6.6.1-2', 2: '6.5.1-2' },
    description: 'Named actions shall be NextPage, PrevPage, FirstPage or LastPage',
    *check(d) {
      for (const a of d.walk.actions) {
        if (a.value.name('S') !== 'Named') continue;
        const n = d.pdf.name(a.value.get('N'));
        if (n === undefined || !NAMED.includes(n)) yield at(`Named ${n ?? '?'}`, a.page);
      }
    },
  },
  {
    ids: { 1: '6.6.2-3', 2: '6.5.2-1' },
    description: 'The catalog shall not have AA',
    *check(d) {
      if (d.pdf.catalog?.has('AA') === true) yield at('AA in the catalog');
    },
  },
  {
    ids: { 2: '6.5.2-2' },
    description: 'A page shall not have AA',
    *check(d) {
      for (const page of d.pdf.pages) if (page.dict.has('AA')) yield at('AA on the page', page.index + 1);
    },
  },
  {
    ids: { 2: '6.9-1' },
    description: 'Each optional content configuration shall have a non-empty Name',
    *check(d) {
      for (const config of ocConfigs(d)) {
        const name = d.pdf.text(config.get('Name'));
        if (name === undefined || name.length === 0) yield at('an optional content configuration without Name');
      }
    },
  },
  {
    ids: { 2: '6.9-2' },
    description: 'Optional content configuration names shall be unique',
    *check(d) {
      const seen = new Set<string>();
      for (const config of ocConfigs(d)) {
        const name = d.pdf.text(config.get('Name'));
        if (name === undefined) continue;
        if (seen.has(name)) yield at(`duplicate name "${name}"`);
        seen.add(name);
      }
    },
  },
  {
    ids: { 2: '6.9-3' },
    description: 'Every optional content group shall be listed in each configuration\'s Order',
    *check(d) {
      const properties = d.pdf.dict(d.pdf.catalog?.get('OCProperties'));
      const groups = (d.pdf.array(properties?.get('OCGs')) ?? []).map((g) => String(g));
      for (const config of ocConfigs(d)) {
        if (!config.has('Order')) continue;
        const listed = new Set<string>();
        const walk = (value: unknown, depth: number): void => {
          const array = d.pdf.array(value as never);
          if (array === undefined || depth > 32) {
            listed.add(String(value));
            return;
          }
          for (const item of array) walk(item, depth + 1);
        };
        walk(config.get('Order'), 0);
        const missing = groups.filter((g) => !listed.has(g));
        if (missing.length > 0) yield at(`${missing.length} groups not in Order`);
      }
    },
  },
  {
    ids: { 2: '6.9-4' },
    description: 'An optional content configuration shall not have AS',
    *check(d) {
      for (const config of ocConfigs(d)) if (config.has('AS')) yield at('AS in an optional content configuration');
    },
  },
  {
    ids: { 2: '6.10-1' },
    description: 'The name dictionary shall not contain AlternatePresentations',
    *check(d) {
      if (d.pdf.dict(d.pdf.catalog?.get('Names'))?.has('AlternatePresentations') === true) yield at('AlternatePresentations');
    },
  },
  {
    ids: { 2: '6.10-2' },
    description: 'A page shall not have PresSteps',
    *check(d) {
      for (const page of d.pdf.pages) if (page.dict.has('PresSteps')) yield at('PresSteps', page.index + 1);
    },
  },
  {
    ids: { 2: '6.11-1' },
    description: 'The catalog shall not have Requirements',
    *check(d) {
      if (d.pdf.catalog?.has('Requirements') === true) yield at('Requirements in the catalog');
    },
  },
];

function ocConfigs(d: PdfaDocument): PdfDict[] {
  const properties = d.pdf.dict(d.pdf.catalog?.get('OCProperties'));
  if (properties === undefined) return [];
  const configs: PdfDict[] = [];
  const main = d.pdf.dict(properties.get('D'));
  if (main !== undefined) configs.push(main);
  for (const item of d.pdf.array(properties.get('Configs')) ?? []) {
    const config = d.pdf.dict(item);
    if (config !== undefined) configs.push(config);
  }
  return configs;
}
