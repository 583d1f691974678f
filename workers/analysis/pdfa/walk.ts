// What a PDF/A validator checks beyond the file's syntax is the objects a
// reader would use: the pages' resources (graphics states, colour spaces,
// images, forms, fonts, patterns, shadings), their content streams, the
// annotations and their appearances, the actions a click or an event runs,
// the form fields. veraPDF walks them from the catalog, not every object in
// the file (an orphan object breaks nothing); this walk does the same once
// and the rules read its lists. Each item keeps the 1-based page it was
// reached from (undefined for document-level objects).
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfDict, PdfName, PdfRef, PdfStream, type PdfValue } from '../../untrusted/pdf-values.js';

export interface Reached<T> {
  readonly value: T;
  readonly page?: number;
  /** A name for messages: "font F1", "image Im3". */
  readonly label: string;
}

export interface ContentStream {
  readonly stream: PdfStream;
  readonly resources: PdfDict | undefined;
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
      this.resources(resources, number);
      const contents = this.pdf.resolve(page.dict.get('Contents'));
      for (const item of Array.isArray(contents) ? contents : [contents]) {
        const stream = this.pdf.stream(item);
        if (stream !== undefined) this.out.contents.push({ stream, resources, page: number, label: `page ${number} content` });
      }
      this.group(page.dict, number);
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
    return this.out;
  }

  private once(value: PdfValue | undefined): boolean {
    const key = value instanceof PdfRef ? `${value.num} ${value.gen}` : value;
    if (key === undefined || key === null || this.seen.has(key) || ++this.visits > MAX_VISITS) return false;
    this.seen.add(key);
    return true;
  }

  private resources(resources: PdfDict | undefined, page: number | undefined): void {
    if (resources === undefined || !this.once(resources)) return;
    const entries = (key: string): [string, PdfValue][] => [...(this.pdf.dict(resources.get(key))?.entries ?? [])];
    for (const [name, value] of entries('ExtGState')) {
      const gs = this.pdf.dict(value);
      if (gs === undefined || !this.once(value instanceof PdfRef ? value : gs)) continue;
      this.out.extGStates.push({ value: gs, page, label: `graphics state ${name}` });
      const softMask = this.pdf.dict(gs.get('SMask'));
      if (softMask !== undefined) this.xobject(softMask.get('G'), page, `soft mask of ${name}`);
    }
    for (const [name, value] of entries('ColorSpace')) this.colourSpace(value, page, `colour space ${name}`);
    for (const [name, value] of entries('XObject')) this.xobject(value, page, `XObject ${name}`);
    for (const [name, value] of entries('Font')) this.font(value, page, `font ${name}`);
    for (const [name, value] of entries('Shading')) this.shading(value, page, `shading ${name}`);
    for (const [name, value] of entries('Pattern')) {
      const pattern = this.pdf.resolve(value);
      const dict = pattern instanceof PdfStream ? pattern.dict : pattern instanceof PdfDict ? pattern : undefined;
      if (dict === undefined || !this.once(value)) continue;
      if (pattern instanceof PdfStream) {
        const patternResources = this.pdf.dict(dict.get('Resources'));
        this.resources(patternResources, page);
        this.out.contents.push({ stream: pattern, resources: patternResources, page, label: `pattern ${name}` });
      } else this.shading(dict.get('Shading'), page, `pattern ${name}`);
      const gs = this.pdf.dict(dict.get('ExtGState'));
      if (gs !== undefined) this.out.extGStates.push({ value: gs, page, label: `graphics state of pattern ${name}` });
    }
  }

  colourSpace(value: PdfValue | undefined, page: number | undefined, label: string): void {
    const resolved = this.pdf.resolve(value);
    if (resolved === undefined || resolved === null) return;
    if (Array.isArray(resolved) && !this.once(value instanceof PdfRef ? value : resolved)) return;
    this.out.colourSpaces.push({ value: resolved, page, label });
    if (!Array.isArray(resolved)) return;
    const family = this.pdf.name(resolved[0]);
    if (family === 'Indexed') this.colourSpace(resolved[1], page, `${label} base`);
    if (family === 'Separation') this.colourSpace(resolved[2], page, `${label} alternate`);
    if (family === 'DeviceN') {
      this.colourSpace(resolved[2], page, `${label} alternate`);
      const attributes = this.pdf.dict(resolved[4]);
      for (const [, cs] of this.pdf.dict(attributes?.get('Colorants'))?.entries ?? []) this.colourSpace(cs, page, `${label} colorant`);
    }
    if (family === 'Pattern' && resolved[1] !== undefined) this.colourSpace(resolved[1], page, `${label} underlying`);
  }

  private xobject(value: PdfValue | undefined, page: number | undefined, label: string): void {
    const stream = this.pdf.stream(value);
    if (stream === undefined || !this.once(value instanceof PdfRef ? value : stream)) return;
    this.out.xobjects.push({ value: stream, page, label });
    const subtype = stream.dict.name('Subtype');
    if (subtype === 'Image') {
      this.out.images.push({ value: stream, page, label });
      if (stream.dict.get('ImageMask') !== true) this.colourSpace(stream.dict.get('ColorSpace'), page, `${label} colour space`);
      this.xobject(stream.dict.get('SMask'), page, `${label} soft mask`);
      this.xobject(stream.dict.get('Mask'), page, `${label} mask`);
      for (const alternate of this.pdf.array(stream.dict.get('Alternates')) ?? []) this.xobject(this.pdf.dict(alternate)?.get('Image'), page, `${label} alternate`);
    } else if (subtype === 'Form') {
      this.out.forms.push({ value: stream, page, label });
      const resources = this.pdf.dict(stream.dict.get('Resources'));
      this.resources(resources, page);
      this.group(stream.dict, page);
      this.out.contents.push({ stream, resources, page, label });
    }
  }

  private group(owner: PdfDict, page: number | undefined): void {
    const group = this.pdf.dict(owner.get('Group'));
    if (group === undefined) return;
    this.out.groups.push({ value: group, page, label: 'transparency group' });
    if (group.has('CS')) this.colourSpace(group.get('CS'), page, 'transparency group colour space');
  }

  private font(value: PdfValue | undefined, page: number | undefined, label: string): void {
    const font = this.pdf.dict(value);
    if (font === undefined || !this.once(value instanceof PdfRef ? value : font)) return;
    this.out.fonts.push({ value: font, page, label });
    for (const descendant of this.pdf.array(font.get('DescendantFonts')) ?? []) this.font(descendant, page, `${label} descendant`);
    if (font.name('Subtype') === 'Type3') {
      const resources = this.pdf.dict(font.get('Resources'));
      this.resources(resources, page);
      for (const [glyph, proc] of this.pdf.dict(font.get('CharProcs'))?.entries ?? []) {
        const stream = this.pdf.stream(proc);
        if (stream !== undefined) this.out.contents.push({ stream, resources, page, label: `${label} glyph ${glyph}` });
      }
    }
  }

  private shading(value: PdfValue | undefined, page: number | undefined, label: string): void {
    const resolved = this.pdf.resolve(value);
    const dict = resolved instanceof PdfStream ? resolved.dict : resolved instanceof PdfDict ? resolved : undefined;
    if (dict === undefined || !this.once(value instanceof PdfRef ? value : dict)) return;
    this.out.shadings.push({ value: dict, page, label });
    this.colourSpace(dict.get('ColorSpace'), page, `${label} colour space`);
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
