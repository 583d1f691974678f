// Colour (ISO 19005-1 §6.2.2-6.2.3, 19005-2 §6.2.3-6.2.4): the output
// intent and its ICC profile, ICCBased colour spaces, device colour only
// with a matching output intent, DeviceN colourants and Separation
// consistency. The rest of graphics is rules-graphics.ts.
import { PdfDict, PdfStream, type PdfValue } from '../../untrusted/pdf-values.js';
import type { Violation } from '../rules.js';
import type { PdfaDocument } from './document.js';
import { readIccHeader } from './icc.js';
import { at, type PdfaRule } from './rule.js';

type Family = 'DeviceRGB' | 'DeviceCMYK' | 'DeviceGray';

/** Device colour spaces named by the walk's colour spaces (resources, images, shadings, groups, alternates) and by the content streams' operators. */
function* deviceUses(d: PdfaDocument, family: Family): Generator<Violation> {
  for (const cs of d.walk.colourSpaces) {
    if (cs.defaults?.has(family.replace('Device', 'Default')) === true) continue;
    if (d.pdf.name(cs.value as PdfValue) === family || (Array.isArray(cs.value) && cs.value.length === 1 && d.pdf.name(cs.value[0]) === family)) yield at(cs.label, cs.page);
  }
  for (const use of d.content.deviceColour) if (use.family === family) yield at(use.label, use.page);
}

function deviceRule(ids: { 1: string; 2: string }, family: Family, outputSpace: string | undefined, description: string): PdfaRule {
  return {
    ids,
    description,
    *check(d) {
      const output = d.outputColourSpace;
      if (outputSpace === undefined ? output !== undefined : output === outputSpace) return;
      yield* deviceUses(d, family);
    },
  };
}

function* iccProfiles(d: PdfaDocument): Generator<{ header: ReturnType<typeof readIccHeader>; n: number | undefined; label: string; page?: number; stream: PdfStream }> {
  for (const cs of d.walk.colourSpaces) {
    if (!Array.isArray(cs.value) || d.pdf.name(cs.value[0]) !== 'ICCBased') continue;
    const stream = d.pdf.stream(cs.value[1]);
    if (stream === undefined) continue;
    const bytes = stream.decoded();
    yield { header: bytes === undefined ? undefined : readIccHeader(bytes), n: d.pdf.number(stream.dict.get('N')), label: cs.label, page: cs.page, stream };
  }
}

/** A value as something to compare by content (references followed, a few levels deep): two copies of one function are the same function. */
function identity(d: PdfaDocument, value: PdfValue | undefined, depth = 0): string {
  const resolved = depth > 8 ? value : d.pdf.resolve(value);
  if (resolved instanceof PdfStream) return `stream ${identity(d, resolved.dict, depth + 1)} ${Buffer.from(resolved.raw).toString('base64')}`;
  if (Array.isArray(resolved)) return `[${resolved.map((item) => identity(d, item, depth + 1)).join(' ')}]`;
  if (resolved instanceof PdfDict) return `<<${[...resolved.entries].filter(([k]) => k !== 'Length').map(([k, v]) => `${k} ${identity(d, v, depth + 1)}`).join(' ')}>>`;
  return String(resolved);
}

export const COLOUR_RULES: readonly PdfaRule[] = [
  {
    ids: { 1: '6.2.2-1', 2: '6.2.3-1' },
    description: 'The output intent\'s profile shall be an ICC output profile (prtr or mntr) in RGB, CMYK or Gray, of version 2 (PDF/A-1) or before 5 (PDF/A-2 and 3)',
    *check(d) {
      const intents = d.pdf.array(d.pdf.catalog?.get('OutputIntents')) ?? [];
      for (const item of intents) {
        const stream = d.pdf.stream(d.pdf.dict(item)?.get('DestOutputProfile'));
        if (stream === undefined) continue;
        const bytes = stream.decoded();
        const header = bytes === undefined ? undefined : readIccHeader(bytes);
        const maxVersion = d.part === 1 ? 3 : 5;
        if (header === undefined || !['prtr', 'mntr'].includes(header.deviceClass) || !['RGB ', 'CMYK', 'GRAY'].includes(header.colourSpace) || header.version >= maxVersion) {
          yield at(header === undefined ? 'not an ICC profile' : `${header.deviceClass} ${header.colourSpace.trim()} version ${header.version}`);
        }
      }
    },
  },
  {
    ids: { 1: '6.2.2-2', 2: '6.2.3-2' },
    description: 'All output intents with a DestOutputProfile shall share the same indirect profile',
    *check(d) {
      const intent = d.outputIntent;
      if (intent !== null && !intent.sameProfile) yield at(`${intent.count} different profiles`);
    },
  },
  {
    ids: { 2: '6.2.3-3' },
    description: 'A GTS_PDFX output intent shall not have DestOutputProfileRef',
    *check(d) {
      for (const item of d.pdf.array(d.pdf.catalog?.get('OutputIntents')) ?? []) {
        const intent = d.pdf.dict(item);
        if (intent?.name('S') === 'GTS_PDFX' && intent.has('DestOutputProfileRef')) yield at('DestOutputProfileRef');
      }
    },
  },
  {
    ids: { 1: '6.2.3.2-1', 2: '6.2.4.2-1' },
    description: 'An ICCBased colour space\'s profile shall be an input, display, output or colour-space profile in RGB, CMYK, Gray or Lab',
    *check(d) {
      const maxVersion = d.part === 1 ? 3 : 5;
      for (const p of iccProfiles(d)) {
        const h = p.header;
        if (h === undefined || !['prtr', 'mntr', 'scnr', 'spac'].includes(h.deviceClass) || !['RGB ', 'CMYK', 'GRAY', 'Lab '].includes(h.colourSpace) || h.version >= maxVersion) {
          yield at(`${p.label}: ${h === undefined ? 'not an ICC profile' : `${h.deviceClass} ${h.colourSpace.trim()} ${h.version}`}`, p.page);
        }
      }
    },
  },
  {
    ids: { 1: '6.2.3.2-2' },
    description: 'An ICCBased colour space\'s N shall match its profile\'s colour space',
    *check(d) {
      for (const p of iccProfiles(d)) {
        const space = p.header?.colourSpace;
        if (space === undefined) continue;
        const ok = (p.n === 1 && space === 'GRAY') || (p.n === 3 && (space === 'RGB ' || space === 'Lab ')) || (p.n === 4 && space === 'CMYK');
        if (!ok) yield at(`${p.label}: N ${p.n ?? 'missing'}, profile ${space.trim()}`, p.page);
      }
    },
  },
  deviceRule({ 1: '6.2.3.3-1', 2: '6.2.4.3-2' }, 'DeviceRGB', 'RGB ', 'DeviceRGB shall be used only with an RGB output intent'),
  deviceRule({ 1: '6.2.3.3-2', 2: '6.2.4.3-3' }, 'DeviceCMYK', 'CMYK', 'DeviceCMYK shall be used only with a CMYK output intent'),
  deviceRule({ 1: '6.2.3.3-3', 2: '6.2.4.3-4' }, 'DeviceGray', undefined, 'DeviceGray shall be used only with an output intent'),
  {
    ids: { 2: '6.2.4.4-1' },
    description: 'A DeviceN colour space shall define every colourant in its Colorants dictionary',
    *check(d) {
      for (const cs of d.walk.colourSpaces) {
        if (!Array.isArray(cs.value) || d.pdf.name(cs.value[0]) !== 'DeviceN') continue;
        const names = (d.pdf.array(cs.value[1]) ?? []).map((n) => d.pdf.name(n)).filter((n) => n !== undefined && n !== 'None');
        const colorants = d.pdf.dict(d.pdf.dict(cs.value[4])?.get('Colorants'));
        const missing = names.filter((n) => !colorants?.has(n!));
        if (missing.length > 0) yield at(`${cs.label}: ${missing.join(', ')}`, cs.page);
      }
    },
  },
  {
    ids: { 2: '6.2.4.4-2' },
    description: 'Separation colour spaces of the same colourant shall have the same tint transform and alternate space',
    *check(d) {
      const seen = new Map<string, string>();
      for (const cs of d.walk.colourSpaces) {
        if (!Array.isArray(cs.value) || d.pdf.name(cs.value[0]) !== 'Separation') continue;
        const name = d.pdf.name(cs.value[1]);
        if (name === undefined || name === 'All' || name === 'None') continue;
        const key = `${identity(d, cs.value[2])}|${identity(d, cs.value[3])}`;
        const before = seen.get(name);
        if (before === undefined) seen.set(name, key);
        else if (before !== key) yield at(`${cs.label}: colourant ${name}`, cs.page);
      }
    },
  },
];
