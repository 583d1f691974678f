// Appearance streams of text fields whose value pdf-lib's appearance
// providers cannot draw (part of the form seam, pdf-form.ts): right-to-left
// and mixed-direction values, which need the Unicode Bidirectional
// Algorithm's visual order and a start-side alignment, values of scripts
// whose glyphs are shaped out of character order, and values no one font
// covers (Devanagari with Latin: the Noto Devanagari face has no Latin).
// pdf-lib lays out one string in one font, left to right.
//
// The layout is the caller's (the fill-form task hands in the render
// engine's, through DrawFieldText); this module reads what the widget asks
// for (box, rotation, border, background, /DA font, size and colour, /Q,
// comb and multi-line flags) and writes the form XObject around the text
// it gets back: the same frame pdf-lib draws (background, border, the
// /Tx marked content clipped to the inside, ISO 32000-2 section 12.7.4.3),
// with every font the text uses in its resources. List boxes use the same
// frame, with their highlighted rows under the text (pdf-form-list.ts).
import { PDFDict, PDFDropdown, PDFName, PDFNumber, PDFString, PDFHexString, PDFTextField, type PDFDocument, type PDFFont, type PDFOptionList, type PDFRef, type PDFWidgetAnnotation } from '@cantoo/pdf-lib';
import type { DocumentFonts, Font, FontSource } from './pdf.js';

export interface FieldColour {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

/** What a widget asks of its text, in the widget's own upright space (rotation undone). */
export interface FieldTextBox {
  readonly text: string;
  /** The box drawn into, upright: the widget's width and height, swapped for a rotation of 90 or 270. */
  readonly width: number;
  readonly height: number;
  /** Where text may go: inside the border and padding, from the box's top-left corner. */
  readonly inside: { readonly x: number; readonly top: number; readonly width: number; readonly height: number };
  readonly multiline: boolean;
  /** Comb field: the text spread over `maxLength` equal cells. */
  readonly comb: boolean;
  readonly maxLength: number | undefined;
  /** /DA's size; 0 is automatic (fit the box). */
  readonly fontSize: number;
  /** /DA's font when it is one of the standard 14 (by its /BaseFont, or the conventional /Helv, /TiRo, /Cour names); else undefined. */
  readonly standardFont: string | undefined;
  readonly colour: FieldColour;
  /** /Q when the field, a parent or the form sets it; undefined when none does, so the text's own direction decides. */
  readonly alignment: 'left' | 'center' | 'right' | undefined;
  /** The document's /Lang, for the Han face. */
  readonly language: string | undefined;
}

export interface FieldTextDrawing {
  /** Content-stream operators in the box's space (origin bottom-left); fonts by their keys. */
  readonly operators: string;
  readonly fonts: Iterable<Font>;
  /** The size used: written into /DA, so that a viewer regenerating the appearance keeps it. */
  readonly fontSize: number;
}

/** Lays out a widget's text; undefined when pdf-lib's own appearance provider draws it right. */
export type DrawFieldText = (box: FieldTextBox, fonts: FontSource) => Promise<FieldTextDrawing | undefined>;

/** The fields whose value is one line or block of text: text fields, and combo boxes, which show the option chosen. */
export type TextLikeField = PDFTextField | PDFDropdown;

/**
 * Draws every widget of a text field or combo box with `draw`. Returns the
 * fonts the appearances use (for the form's /DR), or undefined when `draw`
 * declined the value, which pdf-lib then draws.
 */
export async function drawTextField(doc: PDFDocument, field: TextLikeField, fonts: DocumentFonts, draw: DrawFieldText): Promise<PDFFont[] | undefined> {
  const text = (field instanceof PDFTextField ? field.getText() : field.getSelected()[0]) ?? '';
  const used: PDFFont[] = [];
  for (const widget of field.acroField.getWidgets()) {
    const frame = frameOf(doc, field, widget);
    const drawing = await draw({ ...frame.box, text }, fonts);
    if (drawing === undefined) return undefined;
    used.push(...placeDrawing(doc, field, widget, frame, drawing, fonts));
  }
  return used;
}

/** The fields this module frames: text fields, combo boxes, and list boxes (pdf-form-list.ts). */
export type FramedField = TextLikeField | PDFOptionList;

/**
 * Writes a widget's normal appearance: the frame around the drawing, the
 * drawing's fonts in its resources, and /DA naming the font and size used.
 * `underlay`: operators drawn over the background and border, under the
 * text (a list box's highlighted rows). Returns pdf-lib's fonts, for /DR.
 */
export function placeDrawing(doc: PDFDocument, field: FramedField, widget: PDFWidgetAnnotation, frame: Frame, drawing: FieldTextDrawing, fonts: DocumentFonts, underlay = ''): PDFFont[] {
  const drawn = [...drawing.fonts];
  const natives = drawn.map((font) => fonts.native(font.key));
  const resources: Record<string, PDFRef> = {};
  for (const [i, font] of drawn.entries()) resources[font.key] = (natives[i] as PDFFont).ref;
  const stream = doc.context.flateStream(frame.wrap(drawing.operators, underlay), {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [0, 0, frame.rect.width, frame.rect.height],
    Resources: { Font: resources },
  });
  widget.setNormalAppearance(doc.context.register(stream));
  widget.removeRolloverAppearance();
  widget.removeDownAppearance();
  // /DA names the font a viewer should use if it draws the field anew: the first embedded one the value needed (it has the value's script).
  const daFont = natives.find((native, i) => !(drawn[i] as Font).standard) ?? natives[0];
  if (daFont !== undefined) {
    const da = `/${daFont.name} ${fmt(drawing.fontSize)} Tf ${fmt(frame.box.colour.r)} ${fmt(frame.box.colour.g)} ${fmt(frame.box.colour.b)} rg`;
    if (widget.getDefaultAppearance() !== undefined) widget.setDefaultAppearance(da);
    else field.acroField.setDefaultAppearance(da);
  }
  return natives;
}

export interface Frame {
  readonly rect: { readonly width: number; readonly height: number };
  readonly box: Omit<FieldTextBox, 'text'>;
  /** The border's width (/BS /W; 0 when none). */
  readonly borderWidth: number;
  /** The whole stream: rotation, background, border, the underlay, and the text in /Tx marked content clipped to the inside. */
  wrap(textOperators: string, underlay?: string): string;
}

export function frameOf(doc: PDFDocument, field: FramedField, widget: PDFWidgetAnnotation): Frame {
  const text = field instanceof PDFTextField ? field : undefined;
  const rect = widget.getRectangle();
  const characteristics = widget.getAppearanceCharacteristics();
  const rotation = ((((characteristics?.getRotation() ?? 0) % 360) + 360) % 360) as number;
  const turned = rotation === 90 || rotation === 270;
  const width = turned ? rect.height : rect.width;
  const height = turned ? rect.width : rect.height;
  // As pdf-lib's providers: a border only with /BS /W, 1 pt of padding inside it (none for comb fields).
  const borderWidth = widget.getBorderStyle()?.getWidth() ?? 0;
  const padding = text?.isCombed() === true ? 0 : 1;
  const inset = borderWidth + padding;
  const inside = { x: inset, top: inset, width: Math.max(0, width - 2 * inset), height: Math.max(0, height - 2 * inset) };
  const da = widget.getDefaultAppearance() ?? field.acroField.getDefaultAppearance() ?? formDefaultAppearance(doc) ?? '';
  const { font, size } = daFont(da);
  const box: Omit<FieldTextBox, 'text'> = {
    width,
    height,
    inside,
    multiline: text?.isMultiline() === true,
    comb: text?.isCombed() === true,
    maxLength: text?.getMaxLength(),
    fontSize: size,
    standardFont: standardFontOf(doc, font),
    colour: daColour(da),
    alignment: quadding(doc, widget, field),
    language: textOf(doc.catalog.lookup(PDFName.of('Lang'))),
  };
  const background = colourOf(characteristics?.getBackgroundColor());
  const border = colourOf(characteristics?.getBorderColor());
  return {
    rect,
    box,
    borderWidth,
    wrap(textOperators, underlay = '') {
      const ops = ['q'];
      const rotate = ROTATIONS[rotation];
      if (rotate !== undefined) ops.push(`${rotate(rect.width, rect.height)} cm`);
      const half = borderWidth / 2;
      const frameRect = `${fmt(half)} ${fmt(half)} ${fmt(width - borderWidth)} ${fmt(height - borderWidth)} re`;
      // In their own graphics state: the text's layout starts from the initial one (black fill).
      if (background !== undefined) ops.push(`q ${background} rg ${frameRect} f Q`);
      if (border !== undefined && borderWidth > 0) ops.push(`q ${fmt(borderWidth)} w ${border} RG ${frameRect} S Q`);
      if (underlay !== '') ops.push(underlay);
      ops.push('/Tx BMC', 'q', `${fmt(inside.x)} ${fmt(inset)} ${fmt(inside.width)} ${fmt(inside.height)} re W n`, textOperators, 'Q', 'EMC', 'Q');
      return ops.join('\n');
    },
  };
}

/** The matrix that turns the upright box into the widget's rotation (/MK /R, counter-clockwise), given the widget's width and height. */
const ROTATIONS: Record<number, (width: number, height: number) => string> = {
  90: (width) => `0 1 -1 0 ${fmt(width)} 0`,
  180: (width, height) => `-1 0 0 -1 ${fmt(width)} ${fmt(height)}`,
  270: (_width, height) => `0 -1 1 0 0 ${fmt(height)}`,
};

function formDefaultAppearance(doc: PDFDocument): string | undefined {
  return textOf(doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict)?.lookup(PDFName.of('DA')));
}

const TF = /\/([^\s/<>[\]()]+)\s+([-+\d.]+)\s+Tf/g;
const COLOUR = /([-+\d.]+)(?:\s+([-+\d.]+)\s+([-+\d.]+)(?:\s+([-+\d.]+))?)?\s+(g|rg|k)\b/g;

function daFont(da: string): { font: string | undefined; size: number } {
  const last = [...da.matchAll(TF)].pop();
  const size = Number(last?.[2] ?? 0);
  return { font: last?.[1], size: Number.isFinite(size) && size > 0 ? size : 0 };
}

function daColour(da: string): FieldColour {
  const last = [...da.matchAll(COLOUR)].pop();
  const n = (value: string | undefined) => Math.min(1, Math.max(0, Number(value ?? 0) || 0));
  if (last === undefined) return { r: 0, g: 0, b: 0 };
  const [, a, b, c, d, operator] = last;
  if (operator === 'g') return { r: n(a), g: n(a), b: n(a) };
  if (operator === 'rg') return { r: n(a), g: n(b), b: n(c) };
  const k = n(d);
  return { r: (1 - n(a)) * (1 - k), g: (1 - n(b)) * (1 - k), b: (1 - n(c)) * (1 - k) };
}

const STANDARD_14 = new Set(['Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique', 'Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic', 'Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique']);
/** The resource names Acrobat gives the standard fonts in a form's /DR. */
const CONVENTIONAL_NAMES: ReadonlyMap<string, string> = new Map([
  ['Helv', 'Helvetica'],
  ['HeBo', 'Helvetica-Bold'],
  ['TiRo', 'Times-Roman'],
  ['TiBo', 'Times-Bold'],
  ['Cour', 'Courier'],
]);

function standardFontOf(doc: PDFDocument, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const resources = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict)?.lookupMaybe(PDFName.of('DR'), PDFDict)?.lookupMaybe(PDFName.of('Font'), PDFDict);
  const dict = resources?.lookupMaybe(PDFName.of(name), PDFDict);
  const base = dict?.lookupMaybe(PDFName.of('BaseFont'), PDFName)?.decodeText().replace(/^[A-Z]{6}\+/, '');
  if (base !== undefined) return STANDARD_14.has(base) ? base : undefined;
  return CONVENTIONAL_NAMES.get(name);
}

/** /Q of the widget, the field or a parent, or the form (ISO 32000-2 section 12.7.4.3): 0 left, 1 centred, 2 right. */
function quadding(doc: PDFDocument, widget: PDFWidgetAnnotation, field: FramedField): FieldTextBox['alignment'] {
  let q = widget.dict.lookupMaybe(PDFName.of('Q'), PDFNumber);
  for (let node: PDFDict | undefined = field.acroField.dict, depth = 0; q === undefined && node !== undefined && depth < 32; depth++) {
    q = node.lookupMaybe(PDFName.of('Q'), PDFNumber);
    node = node.lookupMaybe(PDFName.of('Parent'), PDFDict);
  }
  q ??= doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict)?.lookupMaybe(PDFName.of('Q'), PDFNumber);
  if (q === undefined) return undefined;
  return q.asNumber() === 1 ? 'center' : q.asNumber() === 2 ? 'right' : 'left';
}

/** /MK /BG or /BC as a colour operand: 1 component gray, 3 RGB, 4 CMYK; none (or 0 components) is transparent. */
function colourOf(components: number[] | undefined): string | undefined {
  if (components === undefined || components.length === 0 || !components.every(Number.isFinite)) return undefined;
  const [a = 0, b = 0, c = 0, d = 0] = components;
  if (components.length === 1) return `${fmt(a)} ${fmt(a)} ${fmt(a)}`;
  if (components.length === 3) return `${fmt(a)} ${fmt(b)} ${fmt(c)}`;
  return `${fmt((1 - a) * (1 - d))} ${fmt((1 - b) * (1 - d))} ${fmt((1 - c) * (1 - d))}`;
}

function textOf(value: unknown): string | undefined {
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}

export function fmt(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
