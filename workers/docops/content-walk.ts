// Where a document paints each image XObject, and how large: a scan of the
// raw content streams keeping the current transformation matrix (q/Q, cm,
// form XObjects with their /Matrix), since an image is the unit square drawn
// through the matrix in force (ISO 32000-1, 8.9.4). optimize downsamples an
// image to its largest placed size.
//
// Why not the reader's walk (read/images.ts over pdf.js's operator list):
// pdf.js names a painted image by an id of its own, not by its object, so
// the reader matches images to objects by pixel size; and building the
// operator list decodes every image's pixels, which on an image-heavy
// document costs more than the optimization itself. This scan reads the
// operators with the shared content-stream lexer and knows each image's
// object.
import { IDENTITY, multiply, type Matrix } from '../read/matrix.js';
import { contentOperations } from '../untrusted/content-stream.js';
import { PdfName } from '../untrusted/pdf-values.js';

/** An XObject a content stream paints, as the document's seam resolves a resource name. */
export type XObjectTarget<Resources> =
  | { readonly kind: 'image'; readonly id: number }
  | { readonly kind: 'form'; readonly id: number; readonly matrix: Matrix; readonly content: () => Uint8Array; readonly resources: Resources | undefined };

export interface PlacedSize {
  /** Largest width and height in default user space units (points), over every placement. */
  width: number;
  height: number;
}

export interface ContentToWalk<Resources> {
  readonly content: Uint8Array;
  readonly resources: Resources | undefined;
}

/** Form XObjects nest; a hostile file may nest them without end. */
const MAX_FORM_DEPTH = 16;
/** Tokens read over the whole document: a bound on the scan's time for hostile content (a form painted a million times). */
export const MAX_TOKENS = 50_000_000;

/**
 * The largest placed size of every image painted from `contents` (the
 * pages' streams), by object id. An image never painted, or painted from
 * somewhere this scan does not follow (annotations, patterns, Type 3
 * glyphs), is absent. Returns undefined when the token budget ran out: the
 * sizes found so far are not a safe bound.
 */
export function placedImageSizes<Resources>(
  contents: Iterable<ContentToWalk<Resources>>,
  lookup: (resources: Resources, name: string) => XObjectTarget<Resources> | undefined,
): Map<number, PlacedSize> | undefined {
  const sizes = new Map<number, PlacedSize>();
  const formContent = new Map<number, Uint8Array>();
  let budget = MAX_TOKENS;

  const walk = (content: Uint8Array, resources: Resources | undefined, start: Matrix, depth: number, forms: ReadonlySet<number>): boolean => {
    let ctm = start;
    const stack: Matrix[] = [];
    for (const { operator: op, operands } of contentOperations(content)) {
      // Each operand is a token read, the operator one more.
      budget -= operands.length + 1;
      if (budget < 0) return false;
      if (op === 'q') stack.push(ctm);
      else if (op === 'Q') ctm = stack.pop() ?? ctm;
      else if (op === 'cm') {
        if (operands.length === 6 && operands.every((x) => typeof x === 'number')) ctm = multiply(operands as unknown as Matrix, ctm);
      } else if (op === 'Do' && resources !== undefined) {
        const name = operands[operands.length - 1];
        const target = name instanceof PdfName ? lookup(resources, name.name) : undefined;
        if (target?.kind === 'image') {
          const width = Math.hypot(ctm[0], ctm[1]);
          const height = Math.hypot(ctm[2], ctm[3]);
          const size = sizes.get(target.id);
          if (size === undefined) sizes.set(target.id, { width, height });
          else {
            size.width = Math.max(size.width, width);
            size.height = Math.max(size.height, height);
          }
        } else if (target?.kind === 'form' && depth < MAX_FORM_DEPTH && !forms.has(target.id)) {
          let inner = formContent.get(target.id);
          if (inner === undefined) {
            inner = target.content();
            formContent.set(target.id, inner);
          }
          // A form without resources of its own uses its caller's (ISO 32000-1, 7.8.3, for older files).
          if (!walk(inner, target.resources ?? resources, multiply(target.matrix, ctm), depth + 1, new Set([...forms, target.id]))) return false;
        }
      }
    }
    return true;
  };

  for (const { content, resources } of contents) {
    if (!walk(content, resources, IDENTITY, 0, new Set())) return undefined;
  }
  return sizes;
}
