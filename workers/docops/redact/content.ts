// The redaction of one content stream: it is interpreted (graphics and text
// state, ISO 32000-1 sections 8.4 and 9.3) so that every glyph, path, image
// and form it draws has a place on the page, and what falls inside an area
// is taken out of the stream itself:
// - a glyph inside an area is deleted from its Tj/TJ/'/" operator, which
//   becomes a TJ array in which the removed glyphs' advance is a position
//   adjustment, so the glyphs before and after stay exactly where they were;
// - a path whose every point lies inside one area is dropped (a clipping path
//   is kept: it draws nothing);
// - an image XObject that overlaps an area gets a copy with the pixels under
//   the area overwritten (or, when its encoding cannot be rewritten, is
//   dropped whole); an inline image that overlaps one is dropped whole;
// - a form XObject is walked with its matrix; when anything inside it
//   changes, the page draws a changed copy (copy-on-write: other users of the
//   form keep the original).
// Operations left alone are copied byte for byte.
import type { Box, Matrix } from './geometry.js';
import { apply, boxAround, boxThrough, contains, IDENTITY, intersection, invert, multiply, overlaps } from './geometry.js';
import { lexContent, type Operand, type Operation } from './lexer.js';
import { escapeName, formatNumber, TjBuilder } from './tj-array.js';
import type { RedactionFont, ResourceScope, XObject } from '../../seams/pdf-redaction.js';

/** Forms nest; a hostile file may nest them without end (or draw a form from inside itself). */
const MAX_FORM_DEPTH = 16;

/**
 * The part of a glyph's em box that must overlap an area for the glyph to go:
 * 15% in from each side horizontally, so a glyph that only touches an area
 * found from its neighbour's text (the areas are exactly the matched glyphs'
 * advances) stays, and from just below the baseline to the x-height region,
 * so a line's glyphs are not taken by an area on the line above or below.
 */
const GLYPH_BOX = { left: 0.15, right: 0.85, bottom: -0.1, top: 0.7 };

/** A font the stream uses without selecting, or one the seam cannot read: one byte per code, half an em wide. */
const UNKNOWN_FONT: RedactionFont = {
  codes: (bytes) => Array.from(bytes, (code) => ({ code, length: 1, width: 0.5 })),
};

export interface RedactionCounts {
  glyphs: number;
  paths: number;
  images: number;
  /** Operations interpreted so far, forms counted each time they are drawn (see MAX_OPERATIONS). */
  operations: number;
  /** Form XObjects walked into so far (see MAX_FORM_WALKS). */
  forms: number;
}

/** Forms walked into per request: each walk decodes and reads the form's stream again. */
export const MAX_FORM_WALKS = 10_000;

/**
 * Operations one request may interpret. A form drawn 100 times by a form
 * drawn 100 times, a few levels deep, multiplies without end while the file
 * stays small; a real page is thousands to a few hundred thousand.
 */
export const MAX_OPERATIONS = 5_000_000;

/** The document draws more than MAX_OPERATIONS: refused (422), not left to the processing timeout. */
export class TooMuchContent extends Error {
  override readonly name = 'TooMuchContent';
}

export interface StreamRedaction {
  /** The stream's new bytes; null when nothing in it changed. */
  readonly bytes: Uint8Array | null;
  readonly counts: RedactionCounts;
}

export interface RedactionContext {
  /** Areas in the page's display coordinates (top-left origin, y down). */
  readonly areas: readonly Box[];
  /** From the page's user space to its display coordinates. */
  readonly display: Matrix;
  /** The fill colour, RGB 0-255, for pixels under an area. */
  readonly fill: readonly [number, number, number];
}

interface TextState {
  font: RedactionFont;
  size: number;
  charSpacing: number;
  wordSpacing: number;
  scale: number;
  leading: number;
  rise: number;
}

interface GraphicsState {
  ctm: Matrix;
  text: TextState;
}

export async function redactStream(content: Uint8Array, scope: ResourceScope, ctm: Matrix, context: RedactionContext, counts: RedactionCounts): Promise<StreamRedaction> {
  const walk = new StreamWalk(lexContent(content), content, scope, context, counts);
  return { bytes: await walk.run(ctm, 0), counts };
}

const encoder = new TextEncoder();

class StreamWalk {
  /** Per operation: undefined keeps its bytes, null drops it, a string replaces it. */
  private readonly replaced: (string | null | undefined)[];
  private changed = false;

  constructor(
    private readonly operations: readonly Operation[],
    private readonly source: Uint8Array,
    private readonly scope: ResourceScope,
    private readonly context: RedactionContext,
    private readonly counts: RedactionCounts,
    private readonly initialText?: TextState,
  ) {
    this.replaced = new Array<string | null | undefined>(operations.length);
  }

  async run(ctm: Matrix, depth: number): Promise<Uint8Array | null> {
    const stack: GraphicsState[] = [];
    let state: GraphicsState = { ctm, text: this.initialText === undefined ? freshText() : { ...this.initialText } };
    let textMatrix: Matrix = IDENTITY;
    let lineMatrix: Matrix = IDENTITY;
    let path: { indices: number[]; points: [number, number][]; clip: boolean } = { indices: [], points: [], clip: false };
    // Open marked-content sequences (BDC/BMC operation indices): those around a removed glyph lose their replacement texts.
    const marked: number[] = [];
    const markedAroundRemoval = new Set<number>();
    const toDisplay = () => multiply(state.ctm, this.context.display);
    const nextLine = (tx: number, ty: number) => {
      lineMatrix = multiply([1, 0, 0, 1, tx, ty], lineMatrix);
      textMatrix = lineMatrix;
    };
    if ((this.counts.operations += this.operations.length) > MAX_OPERATIONS) throw new TooMuchContent(`more than ${MAX_OPERATIONS} drawing operations`);
    for (let i = 0; i < this.operations.length; i++) {
      const { operator, operands } = this.operations[i] as Operation;
      const n = (k: number) => numberAt(operands, k);
      switch (operator) {
        case 'q':
          stack.push({ ctm: state.ctm, text: { ...state.text } });
          break;
        case 'Q':
          state = stack.pop() ?? state;
          break;
        case 'cm':
          if (operands.length === 6) state.ctm = multiply([n(0), n(1), n(2), n(3), n(4), n(5)], state.ctm);
          break;
        case 'BT':
          textMatrix = IDENTITY;
          lineMatrix = IDENTITY;
          break;
        case 'Tf': {
          const name = operands[0];
          state.text.font = (name?.kind === 'name' ? this.scope.font(name.value) : null) ?? UNKNOWN_FONT;
          state.text.size = n(1);
          break;
        }
        case 'Tc':
          state.text.charSpacing = n(0);
          break;
        case 'Tw':
          state.text.wordSpacing = n(0);
          break;
        case 'Tz':
          state.text.scale = n(0) / 100;
          break;
        case 'TL':
          state.text.leading = n(0);
          break;
        case 'Ts':
          state.text.rise = n(0);
          break;
        case 'Td':
          nextLine(n(0), n(1));
          break;
        case 'TD':
          state.text.leading = -n(1);
          nextLine(n(0), n(1));
          break;
        case 'Tm':
          if (operands.length === 6) lineMatrix = textMatrix = [n(0), n(1), n(2), n(3), n(4), n(5)];
          break;
        case 'T*':
          nextLine(0, -state.text.leading);
          break;
        case 'Tj':
        case "'":
        case '"':
        case 'TJ': {
          let prefix = '';
          if (operator === "'" || operator === '"') {
            if (operator === '"') {
              state.text.wordSpacing = n(0);
              state.text.charSpacing = n(1);
              prefix = `${formatNumber(n(0))} Tw ${formatNumber(n(1))} Tc `;
            }
            nextLine(0, -state.text.leading);
            prefix += 'T* ';
          }
          const shown = operator === 'TJ' ? (operands[0]?.kind === 'array' ? operands[0].items : []) : operands.slice(-1);
          const result = this.showText(shown, state, textMatrix, toDisplay());
          textMatrix = result.textMatrix;
          if (result.array !== null) {
            this.replace(i, `${prefix}${result.array} TJ`);
            for (const index of marked) markedAroundRemoval.add(index);
          }
          break;
        }
        case 'm':
        case 'l':
        case 'c':
        case 'v':
        case 'y':
        case 'h':
        case 're': {
          const m = toDisplay();
          path.indices.push(i);
          if (operator === 're') {
            const [x, y, w, h] = [n(0), n(1), n(2), n(3)];
            path.points.push(apply(m, x, y), apply(m, x + w, y), apply(m, x, y + h), apply(m, x + w, y + h));
          } else {
            for (let k = 0; k + 1 < operands.length; k += 2) path.points.push(apply(m, n(k), n(k + 1)));
          }
          break;
        }
        case 'W':
        case 'W*':
          path.indices.push(i);
          path.clip = true;
          break;
        case 'S':
        case 's':
        case 'f':
        case 'F':
        case 'f*':
        case 'B':
        case 'B*':
        case 'b':
        case 'b*':
        case 'n':
          if (!path.clip && path.points.length > 0 && operator !== 'n') {
            const box = boxAround(path.points);
            if (this.context.areas.some((area) => contains(area, box))) {
              for (const index of [...path.indices, i]) this.replace(index, null);
              this.counts.paths++;
            }
          }
          path = { indices: [], points: [], clip: false };
          break;
        case 'BI':
          if (this.hits(boxThrough(toDisplay(), 0, 0, 1, 1))) {
            this.replace(i, null);
            this.counts.images++;
          }
          break;
        case 'Do': {
          const name = operands[0];
          const xobject = name?.kind === 'name' ? this.scope.xobject(name.value) : null;
          if (xobject !== null && (await this.draw(i, xobject, state, depth))) for (const index of marked) markedAroundRemoval.add(index);
          break;
        }
        case 'BDC':
        case 'BMC':
          marked.push(i);
          break;
        case 'EMC':
          marked.pop();
          break;
      }
    }
    for (const index of markedAroundRemoval) this.withoutReplacementText(index);
    return this.changed ? this.output() : null;
  }

  /**
   * A marked-content sequence's /ActualText, /Alt or /E (section 14.9) is
   * text a reader shows instead of the glyphs: when glyphs inside it were
   * removed, the property list keeps only its /MCID (the link to the
   * structure tree), or the sequence becomes a plain BMC.
   */
  private withoutReplacementText(index: number): void {
    const operation = this.operations[index] as Operation;
    if (operation.operator !== 'BDC') return;
    const raw = Buffer.from(this.source.subarray(operation.start, operation.end)).toString('latin1');
    if (!/\/(ActualText|Alt|E)\b/.test(raw)) return;
    const tag = operation.operands[0]?.kind === 'name' ? `/${escapeName(operation.operands[0].value)}` : '/Span';
    const mcid = /\/MCID\s+(\d+)/.exec(raw)?.[1];
    this.replace(index, mcid === undefined ? `${tag} BMC` : `${tag} << /MCID ${mcid} >> BDC`);
  }

  private hits(box: Box): boolean {
    return this.context.areas.some((area) => overlaps(box, area));
  }

  private replace(index: number, replacement: string | null): void {
    this.replaced[index] = replacement;
    this.changed = true;
  }

  /** Walks the glyphs of one text-showing operator; `array` is the TJ operand that replaces it when a glyph went. */
  private showText(shown: readonly Operand[], state: GraphicsState, start: Matrix, toDisplay: Matrix): { textMatrix: Matrix; array: string | null } {
    const text = state.text;
    const rendering: Matrix = [text.size * text.scale, 0, 0, text.size, 0, text.rise];
    const out = new TjBuilder();
    let matrix = start;
    let removed = false;
    for (const element of shown) {
      if (element.kind === 'number') {
        const tx = (-element.value / 1000) * text.size * text.scale;
        matrix = [matrix[0], matrix[1], matrix[2], matrix[3], matrix[4] + tx * matrix[0], matrix[5] + tx * matrix[1]];
        out.number(element.value);
        continue;
      }
      if (element.kind !== 'string') continue;
      let offset = 0;
      for (const glyph of text.font.codes(element.bytes)) {
        const bytes = element.bytes.subarray(offset, offset + glyph.length);
        offset += glyph.length;
        const spacing = text.charSpacing + (glyph.length === 1 && glyph.code === 32 ? text.wordSpacing : 0);
        const glyphToDisplay = multiply(multiply(rendering, matrix), toDisplay);
        const w = glyph.width;
        const box = boxThrough(glyphToDisplay, w * GLYPH_BOX.left, GLYPH_BOX.bottom, w * GLYPH_BOX.right, GLYPH_BOX.top);
        if (this.hits(box)) {
          removed = true;
          this.counts.glyphs++;
          // The glyph's advance as a TJ adjustment: tx = -n/1000 x size x scale (section 9.4.4).
          out.number(text.size === 0 ? -w * 1000 : -(w + spacing / text.size) * 1000);
        } else {
          out.bytes(bytes);
        }
        const tx = (w * text.size + spacing) * text.scale;
        matrix = [matrix[0], matrix[1], matrix[2], matrix[3], matrix[4] + tx * matrix[0], matrix[5] + tx * matrix[1]];
      }
    }
    return { textMatrix: matrix, array: removed ? out.toString() : null };
  }

  /** Whether anything the XObject drew was removed or overwritten. */
  private async draw(index: number, xobject: XObject, state: GraphicsState, depth: number): Promise<boolean> {
    const toDisplay = multiply(state.ctm, this.context.display);
    if (xobject.kind === 'image') {
      if (!this.hits(boxThrough(toDisplay, 0, 0, 1, 1))) return false;
      const rects = this.pixelRects(toDisplay, xobject.width, xobject.height);
      if (rects.length === 0) return false;
      const name = await this.scope.redactImage(xobject, rects, this.context.fill);
      this.replace(index, name === null ? null : `/${escapeName(name)} Do`);
      this.counts.images++;
      return true;
    }
    const formToPage = multiply(xobject.matrix, state.ctm);
    const [bx0, by0, bx1, by1] = xobject.bbox;
    if (depth >= MAX_FORM_DEPTH || !this.hits(boxThrough(multiply(formToPage, this.context.display), bx0, by0, bx1, by1))) return false;
    if (++this.counts.forms > MAX_FORM_WALKS) throw new TooMuchContent(`more than ${MAX_FORM_WALKS} form XObjects drawn`);
    const content = xobject.content();
    const inner = new StreamWalk(lexContent(content), content, xobject.resources, this.context, this.counts, state.text);
    const bytes = await inner.run(formToPage, depth + 1);
    if (bytes === null && !xobject.resources.changed()) return false;
    const name = this.scope.addForm(xobject, bytes ?? content);
    this.replace(index, `/${escapeName(name)} Do`);
    return true;
  }

  /** The image's pixels under each area it overlaps: [column, row, columns, rows], row 0 at the image's top (section 8.9.5). */
  private pixelRects(toDisplay: Matrix, width: number, height: number): [number, number, number, number][] {
    const toUnit = invert(toDisplay);
    if (toUnit === null) return [];
    const placed = boxThrough(toDisplay, 0, 0, 1, 1);
    const rects: [number, number, number, number][] = [];
    for (const area of this.context.areas) {
      const part = intersection(area, placed);
      if (part === null) continue;
      const unit = boxThrough(toUnit, part.x0, part.y0, part.x1, part.y1);
      const column = Math.max(0, Math.floor(unit.x0 * width));
      const columnEnd = Math.min(width, Math.ceil(unit.x1 * width));
      const row = Math.max(0, Math.floor((1 - unit.y1) * height));
      const rowEnd = Math.min(height, Math.ceil((1 - unit.y0) * height));
      if (columnEnd > column && rowEnd > row) rects.push([column, row, columnEnd - column, rowEnd - row]);
    }
    return rects;
  }

  private output(): Uint8Array {
    const parts: Uint8Array[] = [];
    const newline = Uint8Array.of(0x0a);
    for (const [i, operation] of this.operations.entries()) {
      const replacement = this.replaced[i];
      if (replacement === null) continue;
      parts.push(replacement === undefined ? this.source.subarray(operation.start, operation.end) : encoder.encode(replacement), newline);
    }
    return Buffer.concat(parts);
  }
}

function freshText(): TextState {
  return { font: UNKNOWN_FONT, size: 0, charSpacing: 0, wordSpacing: 0, scale: 1, leading: 0, rise: 0 };
}

function numberAt(operands: readonly Operand[], index: number): number {
  const operand = operands[index];
  return operand?.kind === 'number' ? operand.value : 0;
}
