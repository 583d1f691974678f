// What a PDF/A validator checks beyond the file's syntax is the objects a
// reader would use: the pages' resources (graphics states, colour spaces,
// images, forms, fonts, patterns, shadings), their content streams, the
// annotations and their appearances, the actions a click or an event runs,
// the form fields. veraPDF walks them from the catalog, not every object in
// the file (an orphan object breaks nothing); this walk does the same once
// and the rules read its lists. Each item keeps the 1-based page it was
// reached from (undefined for document-level objects).
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { contentOperations } from '../../untrusted/content-stream.js';
import { PdfDict, PdfName, PdfRef, PdfStream, type PdfValue } from '../../untrusted/pdf-values.js';

export interface Reached<T> {
  readonly value: T;
  readonly page?: number;
  /** A name for messages: "font F1", "image Im3". */
  readonly label: string;
  /** The Default colour spaces (DefaultRGB, DefaultCMYK, DefaultGray) of the resources it was reached from: they replace the device space of that name. */
  readonly defaults?: ReadonlySet<string>;
}

const NO_DEFAULTS: ReadonlySet<string> = new Set();
/** Inline images name device spaces by abbreviation too (ISO 32000-1 Table 93). */
const INLINE_DEVICE_NAMES = new Set(['G', 'RGB', 'CMYK', 'I', 'DeviceGray', 'DeviceRGB', 'DeviceCMYK', 'Indexed', 'Pattern']);
/** Operators read at most over all content streams: the walk needs the resources they use, not the drawing. */
const MAX_OPERATIONS = 5_000_000;

/** The Default colour spaces a resource dictionary defines, on top of the ones it inherits. */
function defaultsOf(pdf: PdfObjects, resources: PdfDict | undefined, inherited: ReadonlySet<string>): ReadonlySet<string> {
  const spaces = pdf.dict(resources?.get('ColorSpace'));
  const own = ['DefaultRGB', 'DefaultCMYK', 'DefaultGray'].filter((name) => spaces?.has(name) === true);
  return own.length === 0 ? inherited : new Set([...inherited, ...own]);
}

export interface ContentStream {
  readonly stream: PdfStream;
  readonly resources: PdfDict | undefined;
  /** The stream's owner has no Resources of its own: a page that inherits them from the page tree, a form that uses its parent's. */
  readonly inheritedResources?: boolean;
  readonly page?: number;
  readonly label: string;
}

export interface DocumentWalk {
  readonly extGStates: Reached<PdfDict>[];
  /** Every colour space value met (a name or an array), in resources, images, shadings, groups. */
  readonly colourSpaces: Reached<PdfValue>[];
  readonly images: Reached<PdfStream>[];
  readonly forms: Reached<PdfStream>[];
  readonly xobjects: Reached<PdfStream>[];
  readonly fonts: Reached<PdfDict>[];
  readonly shadings: Reached<PdfDict>[];
  readonly contents: ContentStream[];
  readonly annotations: Reached<PdfDict>[];
  readonly actions: Reached<PdfDict>[];
  readonly fields: Reached<PdfDict>[];
  /** Transparency groups (/Group with /S /Transparency) of pages and forms. */
  readonly groups: Reached<PdfDict>[];
}

/** Objects visited at most: a hostile file's object graph can be any size. */
const MAX_VISITS = 200_000;

export function walkDocument(pdf: PdfObjects): DocumentWalk {
  return new Walker(pdf).run();
}

class Walker {
  private readonly seen = new Set<unknown>();
  private readonly pending: { stream: PdfStream; resources: PdfDict | undefined; page: number | undefined; defaults: ReadonlySet<string> }[] = [];
  private visits = 0;
  readonly out: DocumentWalk = {
    extGStates: [],
    colourSpaces: [],
    images: [],
    forms: [],
    xobjects: [],
    fonts: [],
    shadings: [],
    contents: [],
    annotations: [],
    actions: [],
    fields: [],
    groups: [],
  };

  constructor(private readonly pdf: PdfObjects) {}

  run(): DocumentWalk {
    const catalog = this.pdf.catalog;
    for (const page of this.pdf.pages) {
      const number = page.index + 1;
      const resources = this.pdf.dict(page.inherited('Resources'));
      const defaults = defaultsOf(this.pdf, resources, NO_DEFAULTS);
      const contents = this.pdf.resolve(page.dict.get('Contents'));
      for (const item of Array.isArray(contents) ? contents : [contents]) {
        const stream = this.pdf.stream(item);
        if (stream !== undefined) this.content(stream, resources, number, `page ${number} content`, defaults, !page.dict.has('Resources'));
      }
      this.group(page.dict, number, defaults);
      for (const annotation of this.pdf.array(page.dict.get('Annots')) ?? []) this.annotation(annotation, number);
      this.additionalActions(page.dict.get('AA'), number);
    }
    if (catalog !== undefined) {
      this.action(catalog.get('OpenAction'), undefined);
      this.additionalActions(catalog.get('AA'), undefined);
      const form = this.pdf.dict(catalog.get('AcroForm'));
      for (const field of this.pdf.array(form?.get('Fields')) ?? []) this.field(field, 0);
      this.outline(this.pdf.dict(this.pdf.dict(catalog.get('Outlines'))?.get('First')));
    }
    this.drain();
    return this.out;
  }

  private once(value: PdfValue | undefined): boolean {
    const key = value instanceof PdfRef ? `${value.num} ${value.gen}` : value;
    if (key === undefined || key === null || this.seen.has(key) || ++this.visits > MAX_VISITS) return false;
    this.seen.add(key);
    return true;
  }

  /** A content stream to read: what its operators use is what gets checked (veraPDF checks used resources, not every entry of a dictionary). */
  private content(stream: PdfStream, resources: PdfDict | undefined, page: number | undefined, label: string, defaults: ReadonlySet<string>, inheritedResources = false): void {
    this.out.contents.push({ stream, resources, page, label, inheritedResources });
    this.pending.push({ stream, resources, page, defaults });
  }

  private drain(): void {
    let operations = 0;
    for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
      const bytes = next.stream.decoded();
      if (bytes === undefined) continue;
      const { resources, page, defaults } = next;
      const lookup = (category: string, operand: PdfValue | undefined): [string, PdfValue | undefined] => {
        const name = operand instanceof PdfName ? operand.name : '';
        return [name, name === '' ? undefined : this.pdf.dict(resources?.get(category))?.get(name)];
      };
      for (const op of contentOperations(bytes)) {
        if (++operations > MAX_OPERATIONS) return;
        switch (op.operator) {
          case 'Tf': {
            const [name, font] = lookup('Font', op.operands[0]);
            this.font(font, page, `font ${name}`, defaults, resources);
            break;
          }
          case 'Do': {
            const [name, xobject] = lookup('XObject', op.operands[0]);
            this.xobject(xobject, page, `XObject ${name}`, defaults, resources);
            break;
          }
          case 'gs': {
            const [name, gs] = lookup('ExtGState', op.operands[0]);
            this.extGState(gs, page, `graphics state ${name}`, defaults, resources);
            break;
          }
          case 'cs':
          case 'CS': {
            const [name, space] = lookup('ColorSpace', op.operands[0]);
            if (space !== undefined) this.colourSpace(space, page, `colour space ${name}`, defaults);
            break;
          }
          case 'sh': {
            const [name, shading] = lookup('Shading', op.operands[0]);
            this.shading(shading, page, `shading ${name}`, defaults);
            break;
          }
          case 'scn':
          case 'SCN': {
            const last = op.operands.at(-1);
            if (last instanceof PdfName) {
              const [name, pattern] = lookup('Pattern', last);
              this.pattern(pattern, page, `pattern ${name}`, defaults, resources);
            }
            break;
          }
          case 'BI': {
            const dict = op.operands[0];
            const space = dict instanceof PdfDict ? (dict.get('CS') ?? dict.get('ColorSpace')) : undefined;
            if (space instanceof PdfName && !INLINE_DEVICE_NAMES.has(space.name)) {
              const [name, value] = lookup('ColorSpace', space);
              if (value !== undefined) this.colourSpace(value, page, `inline image colour space ${name}`, defaults);
            }
            break;
          }
          default:
            break;
        }
      }
    }
  }

  private extGState(value: PdfValue | undefined, page: number | undefined, label: string, defaults: ReadonlySet<string>, resources: PdfDict | undefined): void {
    const gs = this.pdf.dict(value);
    if (gs === undefined || !this.once(value instanceof PdfRef ? value : gs)) return;
    this.out.extGStates.push({ value: gs, page, label });
    const softMask = this.pdf.dict(gs.get('SMask'));
    if (softMask !== undefined) this.xobject(softMask.get('G'), page, `soft mask of ${label}`, defaults, resources);
  }

  private pattern(value: PdfValue | undefined, page: number | undefined, label: string, defaults: ReadonlySet<string>, parent: PdfDict | undefined): void {
    const pattern = this.pdf.resolve(value);
    const dict = pattern instanceof PdfStream ? pattern.dict : pattern instanceof PdfDict ? pattern : undefined;
    if (dict === undefined || !this.once(value instanceof PdfRef ? value : dict)) return;
    if (pattern instanceof PdfStream) {
      const resources = this.pdf.dict(dict.get('Resources')) ?? parent;
      this.content(pattern, resources, page, label, defaultsOf(this.pdf, resources, defaults));
    } else this.shading(dict.get('Shading'), page, label, defaults);
    const gs = dict.get('ExtGState');
    if (gs !== undefined) this.extGState(gs, page, `graphics state of ${label}`, defaults, parent);
  }

  colourSpace(value: PdfValue | undefined, page: number | undefined, label: string, defaults: ReadonlySet<string> = NO_DEFAULTS): void {
    const resolved = this.pdf.resolve(value);
    if (resolved === undefined || resolved === null) return;
    if (Array.isArray(resolved) && !this.once(value instanceof PdfRef ? value : resolved)) return;
    this.out.colourSpaces.push({ value: resolved, page, label, defaults });
    if (!Array.isArray(resolved)) return;
    const family = this.pdf.name(resolved[0]);
    if (family === 'Indexed') this.colourSpace(resolved[1], page, `${label} base`, defaults);
    if (family === 'Separation') this.colourSpace(resolved[2], page, `${label} alternate`, defaults);
    if (family === 'DeviceN') {
      this.colourSpace(resolved[2], page, `${label} alternate`, defaults);
      const attributes = this.pdf.dict(resolved[4]);
      for (const [, cs] of this.pdf.dict(attributes?.get('Colorants'))?.entries ?? []) this.colourSpace(cs, page, `${label} colorant`, defaults);
    }
    if (family === 'Pattern' && resolved[1] !== undefined) this.colourSpace(resolved[1], page, `${label} underlying`, defaults);
  }

  private xobject(value: PdfValue | undefined, page: number | undefined, label: string, defaults: ReadonlySet<string> = NO_DEFAULTS, parent?: PdfDict): void {
    const stream = this.pdf.stream(value);
    if (stream === undefined || !this.once(value instanceof PdfRef ? value : stream)) return;
    this.out.xobjects.push({ value: stream, page, label });
    const subtype = stream.dict.name('Subtype');
    if (subtype === 'Image') {
      this.out.images.push({ value: stream, page, label });
      if (stream.dict.get('ImageMask') !== true) this.colourSpace(stream.dict.get('ColorSpace'), page, `${label} colour space`);
      this.xobject(stream.dict.get('SMask'), page, `${label} soft mask`);
      this.xobject(stream.dict.get('Mask'), page, `${label} mask`);
      for (const alternate of this.pdf.array(stream.dict.get('Alternates')) ?? []) this.xobject(this.pdf.dict(alternate)?.get('Image'), page, `${label} alternate`, defaults);
    } else if (subtype === 'Form') {
      this.out.forms.push({ value: stream, page, label });
      // A form without Resources uses its parent's (PDF 1.1 files; ISO 32000-1 §7.8.3).
      const resources = this.pdf.dict(stream.dict.get('Resources')) ?? parent;
      const own = defaultsOf(this.pdf, resources, defaults);
      this.group(stream.dict, page, own);
      this.content(stream, resources, page, label, own, !stream.dict.has('Resources'));
    }
  }

  private group(owner: PdfDict, page: number | undefined, defaults: ReadonlySet<string> = NO_DEFAULTS): void {
    const group = this.pdf.dict(owner.get('Group'));
    if (group === undefined) return;
    this.out.groups.push({ value: group, page, label: 'transparency group' });
    if (group.has('CS')) this.colourSpace(group.get('CS'), page, 'transparency group colour space', defaults);
  }

  private font(value: PdfValue | undefined, page: number | undefined, label: string, defaults: ReadonlySet<string> = NO_DEFAULTS, parent?: PdfDict): void {
    const font = this.pdf.dict(value);
    if (font === undefined || !this.once(value instanceof PdfRef ? value : font)) return;
    this.out.fonts.push({ value: font, page, label });
    for (const descendant of this.pdf.array(font.get('DescendantFonts')) ?? []) this.font(descendant, page, `${label} descendant`, defaults);
    if (font.name('Subtype') === 'Type3') {
      const resources = this.pdf.dict(font.get('Resources')) ?? parent;
      const own = defaultsOf(this.pdf, resources, defaults);
      for (const [glyph, proc] of this.pdf.dict(font.get('CharProcs'))?.entries ?? []) {
        const stream = this.pdf.stream(proc);
        if (stream !== undefined) this.content(stream, resources, page, `${label} glyph ${glyph}`, own);
      }
    }
  }

  private shading(value: PdfValue | undefined, page: number | undefined, label: string, defaults: ReadonlySet<string> = NO_DEFAULTS): void {
    const resolved = this.pdf.resolve(value);
    const dict = resolved instanceof PdfStream ? resolved.dict : resolved instanceof PdfDict ? resolved : undefined;
    if (dict === undefined || !this.once(value instanceof PdfRef ? value : dict)) return;
    this.out.shadings.push({ value: dict, page, label });
    this.colourSpace(dict.get('ColorSpace'), page, `${label} colour space`, defaults);
  }

  private annotation(value: PdfValue | undefined, page: number): void {
    const annotation = this.pdf.dict(value);
    if (annotation === undefined || !this.once(value instanceof PdfRef ? value : annotation)) return;
    this.out.annotations.push({ value: annotation, page, label: `${annotation.name('Subtype') ?? 'annotation'} annotation` });
    this.action(annotation.get('A'), page);
    this.additionalActions(annotation.get('AA'), page);
    const appearances = this.pdf.dict(annotation.get('AP'));
    for (const [, state] of appearances?.entries ?? []) {
      const resolved = this.pdf.resolve(state);
      if (resolved instanceof PdfStream) this.xobject(state, page, 'annotation appearance');
      else if (resolved instanceof PdfDict) for (const [, stream] of resolved.entries) this.xobject(stream, page, 'annotation appearance');
    }
  }

  private additionalActions(value: PdfValue | undefined, page: number | undefined): void {
    for (const [, action] of this.pdf.dict(value)?.entries ?? []) this.action(action, page);
  }

  action(value: PdfValue | undefined, page: number | undefined): void {
    const resolved = this.pdf.resolve(value);
    if (Array.isArray(resolved)) return; // an explicit destination (OpenAction may be one)
    const action = this.pdf.dict(value);
    if (action === undefined || !action.has('S') || !this.once(value instanceof PdfRef ? value : action)) return;
    this.out.actions.push({ value: action, page, label: `${action.name('S') ?? 'unknown'} action` });
    const next = this.pdf.resolve(action.get('Next'));
    for (const item of Array.isArray(next) ? next : [action.get('Next')]) this.action(item, page);
  }

  private field(value: PdfValue | undefined, depth: number): void {
    const field = this.pdf.dict(value);
    if (field === undefined || depth > 64 || !this.once(value instanceof PdfRef ? value : field)) return;
    this.out.fields.push({ value: field, label: `field ${this.pdf.text(field.get('T')) ?? ''}` });
    this.additionalActions(field.get('AA'), undefined);
    for (const kid of this.pdf.array(field.get('Kids')) ?? []) this.field(kid, depth + 1);
  }

  private outline(first: PdfDict | undefined): void {
    const queue: PdfDict[] = first === undefined ? [] : [first];
    for (let item = queue.shift(); item !== undefined && this.visits < MAX_VISITS; item = queue.shift()) {
      if (!this.once(item)) continue;
      this.action(item.get('A'), undefined);
      const child = this.pdf.dict(item.get('First'));
      const sibling = this.pdf.dict(item.get('Next'));
      if (child !== undefined) queue.push(child);
      if (sibling !== undefined) queue.push(sibling);
    }
  }
}

export function isNameValue(value: PdfValue | undefined): value is PdfName {
  return value instanceof PdfName;
}
