// Graphics (ISO 19005-1 §6.2 and §6.4, 19005-2 §6.2) but colour (in
// rules-colour.ts, which run just before these): images, form and PostScript
// XObjects, graphics states, rendering intents, undefined operators, and
// transparency (forbidden in part 1; in parts 2 and 3 blend modes are
// checked and a page that uses transparency needs an output intent or a
// group colour space).
import { PdfStream } from '../../untrusted/pdf-values.js';
import type { PdfaDocument } from './document.js';
import { at, type PdfaRule } from './rule.js';

const INTENTS = new Set(['RelativeColorimetric', 'AbsoluteColorimetric', 'Perceptual', 'Saturation']);
const BLEND_MODES = new Set(['Normal', 'Compatible', 'Multiply', 'Screen', 'Overlay', 'Darken', 'Lighten', 'ColorDodge', 'ColorBurn', 'HardLight', 'SoftLight', 'Difference', 'Exclusion', 'Hue', 'Saturation', 'Color', 'Luminosity']);

function usesTransparency(d: PdfaDocument, page: number): boolean {
  for (const gs of d.walk.extGStates) {
    if (gs.page !== page) continue;
    const smask = gs.value.get('SMask');
    if (smask !== undefined && d.pdf.name(smask) !== 'None') return true;
    const ca = d.pdf.number(gs.value.get('ca'));
    const CA = d.pdf.number(gs.value.get('CA'));
    if ((ca !== undefined && ca < 1) || (CA !== undefined && CA < 1)) return true;
    const bm = d.pdf.resolve(gs.value.get('BM'));
    const first = Array.isArray(bm) ? d.pdf.name(bm[0]) : d.pdf.name(bm);
    if (first !== undefined && first !== 'Normal' && first !== 'Compatible') return true;
  }
  return d.walk.images.some((image) => image.page === page && image.value.dict.has('SMask'));
}

export const GRAPHICS_RULES: readonly PdfaRule[] = [
  {
    ids: { 1: '6.2.4-1', 2: '6.2.8-1' },
    description: 'An image shall not have Alternates',
    *check(d) {
      for (const i of d.walk.images) if (i.value.dict.has('Alternates')) yield at(i.label, i.page);
    },
  },
  {
    ids: { 1: '6.2.4-2', 2: '6.2.8-2' },
    description: 'An image (PDF/A-1: any XObject) shall not have OPI',
    *check(d) {
      for (const x of d.part === 1 ? d.walk.xobjects : d.walk.images) if (x.value.dict.has('OPI')) yield at(x.label, x.page);
    },
  },
  {
    ids: { 1: '6.2.4-3', 2: '6.2.8-3' },
    description: 'An image shall not have Interpolate true',
    *check(d) {
      for (const i of d.walk.images) if (i.value.dict.get('Interpolate') === true) yield at(i.label, i.page);
      for (const i of d.content.inlineImages) if ((i.dict.get('I') ?? i.dict.get('Interpolate')) === true) yield at(`inline image in ${i.label}`, i.page);
    },
  },
  {
    ids: { 1: '6.2.4-4', 2: '6.2.8-4' },
    description: 'An image\'s BitsPerComponent shall be 1, 2, 4 or 8 (PDF/A-2 and 3: or 16)',
    *check(d) {
      const allowed = d.part === 1 ? [1, 2, 4, 8] : [1, 2, 4, 8, 16];
      for (const i of d.walk.images) {
        if (i.value.dict.get('ImageMask') === true) continue;
        const bpc = d.pdf.number(i.value.dict.get('BitsPerComponent'));
        if (bpc !== undefined && !allowed.includes(bpc)) yield at(`${i.label}: ${bpc}`, i.page);
      }
    },
  },
  {
    ids: { 1: '6.2.4-5', 2: '6.2.8-5' },
    description: 'An image mask\'s BitsPerComponent shall be 1',
    *check(d) {
      for (const i of d.walk.images) {
        if (i.value.dict.get('ImageMask') !== true) continue;
        const bpc = d.pdf.number(i.value.dict.get('BitsPerComponent'));
        if (bpc !== undefined && bpc !== 1) yield at(`${i.label}: ${bpc}`, i.page);
      }
    },
  },
  {
    ids: { 1: '6.2.5-1', 2: '6.2.9-1' },
    description: 'A form XObject shall not be a PostScript form (Subtype2 PS, PS key; PDF/A-2 and 3: nor OPI)',
    *check(d) {
      for (const f of d.walk.forms) {
        const dict = f.value.dict;
        if (dict.name('Subtype2') === 'PS' || dict.has('PS') || (d.part !== 1 && dict.has('OPI'))) yield at(f.label, f.page);
      }
    },
  },
  {
    ids: { 1: '6.2.6-1', 2: '6.2.9-2' },
    description: 'A form XObject shall not be a reference XObject (Ref)',
    *check(d) {
      for (const f of d.walk.forms) if (f.value.dict.has('Ref')) yield at(f.label, f.page);
    },
  },
  {
    ids: { 1: '6.2.7-1', 2: '6.2.9-3' },
    description: 'There shall be no PostScript XObjects',
    *check(d) {
      for (const x of d.walk.xobjects) if (x.value.dict.name('Subtype') === 'PS') yield at(x.label, x.page);
    },
  },
  {
    ids: { 1: '6.2.8-1', 2: '6.2.5-1' },
    description: 'A graphics state shall not contain TR',
    *check(d) {
      for (const g of d.walk.extGStates) if (g.value.has('TR')) yield at(g.label, g.page);
    },
  },
  {
    ids: { 1: '6.2.8-2', 2: '6.2.5-2' },
    description: 'A graphics state\'s TR2 shall be Default',
    *check(d) {
      for (const g of d.walk.extGStates) if (g.value.has('TR2') && d.pdf.name(g.value.get('TR2')) !== 'Default') yield at(g.label, g.page);
    },
  },
  {
    ids: { 2: '6.2.5-3' },
    description: 'A graphics state shall not contain HTP',
    *check(d) {
      for (const g of d.walk.extGStates) if (g.value.has('HTP')) yield at(g.label, g.page);
    },
  },
  {
    ids: { 2: '6.2.5-4' },
    description: 'A halftone shall be of type 1 or 5',
    *check(d) {
      for (const g of d.walk.extGStates) {
        const ht = d.pdf.resolve(g.value.get('HT'));
        const dict = ht instanceof PdfStream ? ht.dict : d.pdf.dict(ht);
        if (dict === undefined) continue;
        const type = d.pdf.number(dict.get('HalftoneType'));
        if (type !== 1 && type !== 5) yield at(`${g.label}: HalftoneType ${type ?? 'missing'}`, g.page);
      }
    },
  },
  {
    ids: { 2: '6.2.5-5' },
    description: 'A halftone shall not have HalftoneName',
    *check(d) {
      for (const g of d.walk.extGStates) {
        const ht = d.pdf.resolve(g.value.get('HT'));
        const dict = ht instanceof PdfStream ? ht.dict : d.pdf.dict(ht);
        if (dict?.has('HalftoneName') === true) yield at(g.label, g.page);
      }
    },
  },
  {
    ids: { 1: '6.2.9-1', 2: '6.2.6-1' },
    description: 'Rendering intents shall be one of the four standard ones',
    *check(d) {
      for (const g of d.walk.extGStates) {
        const ri = d.pdf.name(g.value.get('RI'));
        if (g.value.has('RI') && (ri === undefined || !INTENTS.has(ri))) yield at(`${g.label}: ${ri ?? '?'}`, g.page);
      }
      for (const i of d.walk.images) {
        const intent = d.pdf.name(i.value.dict.get('Intent'));
        if (intent !== undefined && !INTENTS.has(intent)) yield at(`${i.label}: ${intent}`, i.page);
      }
      for (const r of d.content.renderingIntents) if (!INTENTS.has(r.intent)) yield at(`${r.label}: ri ${r.intent}`, r.page);
      for (const i of d.content.inlineImages) {
        const intent = d.pdf.name(i.dict.get('Intent'));
        if (intent !== undefined && !INTENTS.has(intent)) yield at(`inline image in ${i.label}: ${intent}`, i.page);
      }
    },
  },
  {
    ids: { 2: '6.2.2-2' },
    description: 'A content stream that uses named resources shall have its own Resources (not inherited from the page tree)',
    check: (d) => d.content.inheritedNames.map((n) => at(`${n.label}: /${n.name}`, n.page)),
  },
  {
    ids: { 2: '6.2.4.2-2' },
    description: 'With an ICCBased CMYK colour space, overprinting shall not use overprint mode 1',
    *check(d) {
      const cmykPages = new Set(
        d.walk.colourSpaces
          .filter((cs) => Array.isArray(cs.value) && d.pdf.name(cs.value[0]) === 'ICCBased' && d.pdf.number(d.pdf.stream(cs.value[1])?.dict.get('N')) === 4)
          .map((cs) => cs.page),
      );
      for (const g of d.walk.extGStates) {
        if (!cmykPages.has(g.page)) continue;
        const overprint = g.value.get('OP') === true || g.value.get('op') === true;
        if (overprint && d.pdf.number(g.value.get('OPM')) === 1) yield at(`${g.label}: OPM 1 with overprint`, g.page);
      }
    },
  },
  {
    ids: { 1: '6.2.10-1', 2: '6.2.2-1' },
    description: 'Content streams shall use only operators PDF defines',
    check: (d) => d.content.undefinedOperators.map((o) => at(`${o.label}: ${o.operator}`, o.page)),
  },
  {
    ids: { 2: '6.2.10-1' },
    description: 'Blend modes shall be the ones PDF defines',
    *check(d) {
      for (const g of d.walk.extGStates) {
        const bm = d.pdf.resolve(g.value.get('BM'));
        for (const item of Array.isArray(bm) ? bm : bm === undefined ? [] : [bm]) {
          const name = d.pdf.name(item);
          if (name === undefined || !BLEND_MODES.has(name)) yield at(`${g.label}: ${name ?? '?'}`, g.page);
        }
      }
    },
  },
  {
    ids: { 2: '6.2.10-2' },
    description: 'A page that uses transparency shall have an output intent or a group colour space',
    *check(d) {
      if (d.outputColourSpace !== undefined) return;
      for (const page of d.pdf.pages) {
        const number = page.index + 1;
        const group = d.pdf.dict(page.dict.get('Group'));
        if (group?.has('CS') === true) continue;
        if (usesTransparency(d, number)) yield at('transparency without an output intent', number);
      }
    },
  },
  {
    ids: { 1: '6.4-1' },
    description: 'A graphics state\'s SMask shall be None',
    *check(d) {
      for (const g of d.walk.extGStates) if (g.value.has('SMask') && d.pdf.name(g.value.get('SMask')) !== 'None') yield at(g.label, g.page);
    },
  },
  {
    ids: { 1: '6.4-2' },
    description: 'An XObject shall not have an SMask',
    *check(d) {
      for (const x of d.walk.xobjects) if (x.value.dict.has('SMask')) yield at(x.label, x.page);
    },
  },
  {
    ids: { 1: '6.4-3' },
    description: 'There shall be no transparency groups',
    *check(d) {
      for (const g of d.walk.groups) if (g.value.name('S') === 'Transparency') yield at(g.label, g.page);
    },
  },
  {
    ids: { 1: '6.4-4' },
    description: 'Blend modes shall be Normal or Compatible',
    *check(d) {
      for (const g of d.walk.extGStates) {
        const bm = d.pdf.resolve(g.value.get('BM'));
        const name = Array.isArray(bm) ? d.pdf.name(bm[0]) : d.pdf.name(bm);
        if (g.value.has('BM') && name !== 'Normal' && name !== 'Compatible') yield at(`${g.label}: ${name ?? '?'}`, g.page);
      }
    },
  },
  {
    ids: { 1: '6.4-5' },
    description: 'Stroke alpha (CA) shall be 1.0',
    *check(d) {
      for (const g of d.walk.extGStates) {
        const ca = d.pdf.number(g.value.get('CA'));
        if (ca !== undefined && Math.abs(ca - 1) > 1e-6) yield at(`${g.label}: CA ${ca}`, g.page);
      }
    },
  },
  {
    ids: { 1: '6.4-6' },
    description: 'Fill alpha (ca) shall be 1.0',
    *check(d) {
      for (const g of d.walk.extGStates) {
        const ca = d.pdf.number(g.value.get('ca'));
        if (ca !== undefined && Math.abs(ca - 1) > 1e-6) yield at(`${g.label}: ca ${ca}`, g.page);
      }
    },
  },
];
