// The text a page's annotations hold beyond what their appearances draw:
// a form field's value and default value (ISO 32000-1 section 12.7.3.2,
// /V and /DV, inherited from the parent field, as pdf.js decodes them) and
// a markup annotation's /Contents, which viewers show in the comment pane
// and pop-up. A redaction must find these too: a widget's appearance can
// be stale, missing (NeedAppearances) or hidden while /V still says it all,
// and a form reset brings /DV back into view.
import type { PdfPage } from '../seams/pdfjs.js';
import type { AnnotationText } from './types.js';

interface AnnotationData {
  readonly rect?: readonly number[];
  readonly fieldValue?: unknown;
  readonly defaultFieldValue?: unknown;
  readonly contentsObj?: { readonly str?: unknown };
}

export async function annotationTexts(page: PdfPage, display: readonly number[]): Promise<AnnotationText[]> {
  // intent "any": hidden annotations too (their values are in the file as much as a shown one's).
  const annotations = (await page.getAnnotations({ intent: 'any' })) as AnnotationData[];
  const found: AnnotationText[] = [];
  for (const annotation of annotations) {
    if (!Array.isArray(annotation.rect) || annotation.rect.length !== 4) continue;
    const texts = [...strings(annotation.fieldValue), ...strings(annotation.defaultFieldValue), ...strings(annotation.contentsObj?.str)];
    if (texts.length === 0) continue;
    found.push({ ...box(annotation.rect, display), texts });
  }
  return found;
}

/** A value's strings: a list's selected entries one by one; a check box's state name reads as a string too. */
function strings(value: unknown): string[] {
  const all = Array.isArray(value) ? value : [value];
  return all.filter((item): item is string => typeof item === 'string' && item.trim() !== '');
}

function box(rect: readonly number[], display: readonly number[]): { x: number; y: number; width: number; height: number } {
  const [x1 = 0, y1 = 0, x2 = 0, y2 = 0] = rect;
  const corners = [apply(display, x1, y1), apply(display, x2, y1), apply(display, x1, y2), apply(display, x2, y2)];
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

function apply(m: readonly number[], x: number, y: number): [number, number] {
  return [(m[0] as number) * x + (m[2] as number) * y + (m[4] as number), (m[1] as number) * x + (m[3] as number) * y + (m[5] as number)];
}
