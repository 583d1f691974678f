// The visible box of a signature (part of the signing seam,
// pdf-signature.ts): a form XObject for the widget's normal appearance
// (ISO 32000-2 section 12.7.5.5), a thin frame and the lines given (signer,
// date, reason, location, the caller's text), wrapped at spaces and set at
// the largest size from 10 pt down to 4 pt at which they fit the box.
// Helvetica when every character is in WinAnsiEncoding, else the fallback
// font (DejaVu Sans) embedded as a subset.
import { deflateSync } from 'node:zlib';
import { StandardFonts, type PDFDocument, type PDFFont, type PDFRef } from '@cantoo/pdf-lib';
import { fontkitShim, parseFont } from './fonts-parse.js';
import { inWinAnsi } from './pdf-form-appearance.js';

const PADDING = 4;
const MAX_SIZE = 10;
const MIN_SIZE = 4;
const LEADING = 1.2;

/** The appearance stream of a `width` x `height` box showing `lines`, registered in `doc`. */
export async function signatureAppearance(doc: PDFDocument, width: number, height: number, lines: readonly string[], fallbackFont: Uint8Array): Promise<PDFRef> {
  const winAnsi = lines.every((line) => [...line].every((char) => inWinAnsi(char.codePointAt(0) as number)));
  let font: PDFFont;
  if (winAnsi) {
    font = doc.embedStandardFont(StandardFonts.Helvetica);
  } else {
    doc.registerFontkit(fontkitShim as never);
    const parsed = parseFont(fallbackFont);
    font = await doc.embedFont(parsed.bytes, { subset: true, customName: parsed.subsetName });
  }
  const inner = width - 2 * PADDING;
  let size = MAX_SIZE;
  let wrapped = wrap(lines, font, size, inner);
  while (size > MIN_SIZE && wrapped.length * size * LEADING > height - 2 * PADDING) {
    size -= 0.5;
    wrapped = wrap(lines, font, size, inner);
  }
  const ops: string[] = ['q', '0.2 0.2 0.6 RG', '0.75 w', `0.5 0.5 ${fmt(width - 1)} ${fmt(height - 1)} re S`];
  // Clipped to the box: text that does not fit at the smallest size is cut, not drawn over the page.
  ops.push(`${PADDING} ${PADDING} ${fmt(inner)} ${fmt(height - 2 * PADDING)} re W n`, 'BT', '0 g', `/F1 ${fmt(size)} Tf`);
  // First baseline one em under the top: ascenders stay inside (DejaVu's reach 0.93 em, Helvetica's 0.72).
  let y = height - PADDING - size;
  for (const line of wrapped) {
    ops.push(`1 0 0 1 ${PADDING} ${fmt(y)} Tm`, `${font.encodeText(line).toString()} Tj`);
    y -= size * LEADING;
  }
  ops.push('ET', 'Q');
  const stream = doc.context.stream(deflateSync(Buffer.from(ops.join('\n'), 'latin1')), {
    Type: 'XObject',
    Subtype: 'Form',
    BBox: [0, 0, width, height],
    Resources: { Font: { F1: font.ref } },
    Filter: 'FlateDecode',
  });
  return doc.context.register(stream);
}

/** Each line wrapped at spaces to `width`; a word wider than the box stays whole (the clip cuts it). */
function wrap(lines: readonly string[], font: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  for (const line of lines) {
    let current = '';
    for (const word of line.split(' ')) {
      const candidate = current === '' ? word : `${current} ${word}`;
      if (current !== '' && font.widthOfTextAtSize(candidate, size) > width) {
        out.push(current);
        current = word;
      } else {
        current = candidate;
      }
    }
    out.push(current);
  }
  return out;
}

function fmt(value: number): string {
  return String(Math.round(value * 100) / 100);
}
