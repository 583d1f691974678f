// Every page's content as PDF/UA-1 clause 7.1 sees it: the marked-content
// sequences (BMC/BDC … EMC, §14.6) and each piece of real content drawn
// (text, a path painted, an image, a shading) with the sequences around it.
// Form XObjects are walked where they are drawn, inside the sequences
// around the Do (veraPDF does the same), so a form's content counts as
// tagged or artifact by where it is used. The walk is bounded: a form that
// draws itself, or a page that repeats one form a million times, ends.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { contentOperations } from '../../untrusted/content-stream.js';
import { PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfValue } from '../../untrusted/pdf-values.js';
import { contentKey, type StructureElement, type StructureTree } from '../structure-tree.js';

export interface MarkFrame {
  readonly tag: string;
  /** The property list (inline, or named in the Properties resources). */
  readonly properties: PdfDict | undefined;
  readonly mcid: number | undefined;
}

export interface MarkedSequence {
  readonly page: number;
  readonly tag: string;
  readonly properties: PdfDict | undefined;
  readonly mcid: number | undefined;
  /** The sequences around it, outermost first. */
  readonly parents: readonly MarkFrame[];
  /** It, or a sequence around it, has an MCID (veraPDF's isTaggedContent). */
  readonly tagged: boolean;
  /** The structure element that owns its MCID (or the nearest one around it). */
  readonly owner: StructureElement | undefined;
}

export interface ContentItem {
  readonly page: number;
  readonly kind: 'text' | 'path' | 'image' | 'shading';
  readonly frames: readonly MarkFrame[];
  readonly tagged: boolean;
  readonly artifact: boolean;
  readonly owner: StructureElement | undefined;
  /** Text only: the font dictionary in use, its resource name, the shown strings' bytes, the text rendering mode. */
  readonly font?: PdfDict | undefined;
  readonly fontName?: string;
  readonly strings?: readonly Uint8Array[];
  readonly renderMode?: number;
}

export interface FormUse {
  /** The first page it is drawn on. */
  readonly page: number;
  /** The structure elements owning the places it is drawn. */
  readonly owners: Set<StructureElement | undefined>;
  /** Its own content has marked-content sequences with an MCID. */
  tagged: boolean;
}

export interface MarkedContent {
  readonly sequences: readonly MarkedSequence[];
  readonly items: readonly ContentItem[];
  /** Form XObjects drawn, each with the structure owners of the places it is drawn (7.20-2). */
  readonly forms: ReadonlyMap<PdfStream, FormUse>;
}

/** Content operators read at most over the whole document: the walk's work bound. */
const MAX_OPERATIONS = 5_000_000;
const MAX_FORM_DEPTH = 12;
const TEXT_SHOWING = new Set(['Tj', 'TJ', "'", '"']);
const PAINTING = new Set(['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*']);

export function walkMarkedContent(pdf: PdfObjects, tree: StructureTree): MarkedContent {
  const sequences: MarkedSequence[] = [];
  const items: ContentItem[] = [];
  const forms = new Map<PdfStream, FormUse>();
  let budget = MAX_OPERATIONS;

  const ownerOf = (frames: readonly MarkFrame[], pageRef: PdfRef | undefined, stream: PdfRef | undefined): StructureElement | undefined => {
    for (let i = frames.length - 1; i >= 0; i--) {
      const mcid = frames[i]!.mcid;
      if (mcid === undefined) continue;
      return tree.contentOwners.get(contentKey(pageRef, stream, mcid)) ?? tree.contentOwners.get(contentKey(pageRef, undefined, mcid));
    }
    return undefined;
  };

  const walk = (bytes: Uint8Array, resources: PdfDict | undefined, page: number, pageRef: PdfRef | undefined, outer: readonly MarkFrame[], stream: PdfRef | undefined, depth: number, inForm: Set<PdfStream>): void => {
    const stack: MarkFrame[] = [];
    let font: PdfDict | undefined;
    let fontName: string | undefined;
    let renderMode = 0;
    // The text state (font, rendering mode) is part of the graphics state: q saves it, Q restores it (§8.4.2).
    const saved: { font: PdfDict | undefined; fontName: string | undefined; renderMode: number }[] = [];
    const frames = () => [...outer, ...stack];
    const push = (kind: ContentItem['kind'], extra: Partial<ContentItem> = {}) => {
      const all = frames();
      items.push({
        page,
        kind,
        frames: all,
        tagged: all.some((f) => f.mcid !== undefined),
        artifact: all.some((f) => f.tag === 'Artifact'),
        owner: ownerOf(all, pageRef, stream),
        ...extra,
      });
    };
    for (const op of contentOperations(bytes)) {
      if (--budget <= 0) return;
      const o = op.operator;
      if (o === 'BMC' || o === 'BDC') {
        const tag = op.operands[0] instanceof PdfName ? op.operands[0].name : '';
        let properties: PdfDict | undefined;
        if (o === 'BDC') {
          const operand = op.operands[1];
          properties = operand instanceof PdfDict ? operand : operand instanceof PdfName ? pdf.dict(pdf.dict(resources?.get('Properties'))?.get(operand.name)) : undefined;
        }
        const mcidValue = properties === undefined ? undefined : pdf.resolve(properties.get('MCID'));
        const mcid = typeof mcidValue === 'number' ? mcidValue : undefined;
        const parents = frames();
        const frame = { tag, properties, mcid };
        stack.push(frame);
        const all = frames();
        sequences.push({ page, tag, properties, mcid, parents, tagged: all.some((f) => f.mcid !== undefined), owner: ownerOf(all, pageRef, stream) });
      } else if (o === 'EMC') {
        stack.pop();
      } else if (o === 'Tf') {
        fontName = op.operands[0] instanceof PdfName ? op.operands[0].name : undefined;
        font = fontName === undefined ? undefined : pdf.dict(pdf.dict(resources?.get('Font'))?.get(fontName));
      } else if (o === 'Tr') {
        if (typeof op.operands[0] === 'number') renderMode = op.operands[0];
      } else if (o === 'q') {
        saved.push({ font, fontName, renderMode });
      } else if (o === 'Q') {
        const state = saved.pop();
        if (state !== undefined) ({ font, fontName, renderMode } = state);
      } else if (TEXT_SHOWING.has(o)) {
        push('text', { font, ...(fontName === undefined ? {} : { fontName }), strings: shownStrings(op.operands), renderMode });
      } else if (PAINTING.has(o)) {
        push('path');
      } else if (o === 'BI') {
        push('image');
      } else if (o === 'sh') {
        push('shading');
      } else if (o === 'Do') {
        const name = op.operands[0] instanceof PdfName ? op.operands[0].name : undefined;
        const reference = name === undefined ? undefined : pdf.dict(resources?.get('XObject'))?.get(name);
        const xobject = pdf.stream(reference);
        if (xobject === undefined) continue;
        const subtype = xobject.dict.name('Subtype');
        if (subtype === 'Image') push('image');
        else if (subtype === 'Form' && depth < MAX_FORM_DEPTH && !inForm.has(xobject)) {
          const all = frames();
          const use = forms.get(xobject) ?? { page, owners: new Set<StructureElement | undefined>(), tagged: false };
          use.owners.add(ownerOf(all, pageRef, stream));
          forms.set(xobject, use);
          const formBytes = xobject.decoded();
          if (formBytes === undefined) continue;
          const formResources = pdf.dict(xobject.dict.get('Resources')) ?? resources;
          inForm.add(xobject);
          const before = sequences.length;
          walk(formBytes, formResources, page, pageRef, all, reference instanceof PdfRef ? reference : stream, depth + 1, inForm);
          inForm.delete(xobject);
          if (sequences.slice(before).some((s) => s.mcid !== undefined)) use.tagged = true;
        }
      }
    }
  };

  for (const page of pdf.pages) {
    const resources = pdf.dict(page.inherited('Resources'));
    const bytes = pageContent(pdf, page.dict.get('Contents'));
    if (bytes !== undefined) walk(bytes, resources, page.index + 1, page.dict.ref, [], undefined, 0, new Set());
    if (budget <= 0) break;
  }
  return { sequences, items, forms };
}

/** A page's content: one stream, or an array of them joined (§7.8.2: the split may fall anywhere between tokens). */
export function pageContent(pdf: PdfObjects, contents: PdfValue | undefined): Uint8Array | undefined {
  const resolved = pdf.resolve(contents);
  const streams = (Array.isArray(resolved) ? resolved : [resolved]).map((s) => pdf.stream(s ?? undefined)?.decoded()).filter((b): b is Uint8Array => b !== undefined);
  if (streams.length === 0) return undefined;
  if (streams.length === 1) return streams[0];
  const parts: Uint8Array[] = [];
  for (const s of streams) parts.push(s, new Uint8Array([0x0a]));
  return new Uint8Array(Buffer.concat(parts));
}

function shownStrings(operands: readonly PdfValue[]): Uint8Array[] {
  const strings: Uint8Array[] = [];
  for (const operand of operands) {
    if (operand instanceof PdfString) strings.push(operand.bytes);
    else if (Array.isArray(operand)) for (const part of operand) if (part instanceof PdfString) strings.push(part.bytes);
  }
  return strings;
}
