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
// Operations left alone are copied byte for byte. Which glyphs go is
// text-show.ts; what a request may interpret in all is content-budget.ts.
import type { Box, Matrix } from './geometry.js';
import { apply, boxAround, boxThrough, contains, IDENTITY, multiply, overlaps, pixelRects } from './geometry.js';
import { MAX_FORM_WALKS, MAX_OPERATIONS, TooMuchContent, type RedactionCounts } from './content-budget.js';
import { lexContent, type Operand, type Operation } from './lexer.js';
import { freshText, showText, UNKNOWN_FONT, type TextState } from './text-show.js';
import { escapeName, formatNumber } from './tj-array.js';
import type { ResourceScope, XObject } from '../../seams/pdf-redaction.js';

/** Forms nest; a hostile file may nest them without end (or draw a form from inside itself). */
const MAX_FORM_DEPTH = 16;

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
          const result = showText(shown, state.text, textMatrix, toDisplay(), this.context.areas);
          textMatrix = result.textMatrix;
          if (result.array !== null) {
            this.counts.glyphs += result.removed;
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

  /** Whether anything the XObject drew was removed or overwritten. */
  private async draw(index: number, xobject: XObject, state: GraphicsState, depth: number): Promise<boolean> {
    const toDisplay = multiply(state.ctm, this.context.display);
    if (xobject.kind === 'image') {
      if (!this.hits(boxThrough(toDisplay, 0, 0, 1, 1))) return false;
      const rects = pixelRects(this.context.areas, toDisplay, xobject.width, xobject.height);
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

function numberAt(operands: readonly Operand[], index: number): number {
  const operand = operands[index];
  return operand?.kind === 'number' ? operand.value : 0;
}
