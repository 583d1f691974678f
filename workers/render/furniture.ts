// Page furniture: a header and a footer line drawn in the top and bottom
// margins of every page once the page count is known, with `{page}` and
// `{pages}` replaced ("Page 3 of 12", a top request of the peers' users).
import { BLACK, type PageCanvas } from './canvas.js';
import { RenderError, withGlyphCheck } from './errors.js';
import type { Margins } from './flow.js';
import { standardFamilyOf, type FontBook } from './fonts.js';
import { drawLine, layoutLines, prepareSpans, type Span, type TextStyle } from './inline.js';
import type { Furniture } from './schema.js';

export async function drawFurniture(
  pages: readonly PageCanvas[],
  margins: Margins,
  fonts: FontBook,
  header: Furniture | undefined,
  footer: Furniture | undefined,
): Promise<void> {
  for (const [furniture, where, field] of [
    [header, 'top', 'header'],
    [footer, 'bottom', 'footer'],
  ] as const) {
    if (furniture === undefined) continue;
    const exact = standardFamilyOf(furniture.family);
    const style: TextStyle = {
      family: exact?.family ?? furniture.family,
      bold: exact?.bold ?? false,
      italic: exact?.italic ?? false,
      size: furniture.size,
      color: furniture.color ?? BLACK,
      lineHeight: 1.2,
      underline: false,
      strike: false,
    };
    // Every page differs only in digits, which every font has.
    await prepareSpans([{ text: furniture.text, style }], fonts);
    const total = String(pages.length);
    pages.forEach((page, index) => {
      const text = furniture.text.replaceAll('{pages}', total).replaceAll('{page}', String(index + 1));
      const spans: Span[] = [{ text, style }];
      const width = Math.max(1, page.width - margins.left - margins.right);
      const lines = withGlyphCheck(`${field}.text`, () => layoutLines(spans, width, fonts));
      const height = lines.reduce((sum, line) => sum + line.height, 0);
      const band = where === 'top' ? margins.top : margins.bottom;
      if (height > band) {
        throw new RenderError([
          { field: `${field}.text`, code: 'OUT_OF_RANGE', message: `the ${field} is ${height.toFixed(0)} pt tall but its margin is ${band.toFixed(0)} pt; shorten it or widen the margin` },
        ]);
      }
      let top = (band - height) / 2 + (where === 'top' ? 0 : page.height - margins.bottom);
      for (const line of lines) {
        drawLine(page, line, margins.left, top, width, furniture.align);
        top += line.height;
      }
    });
  }
}
