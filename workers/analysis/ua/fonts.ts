// The fonts the pages draw text with (found by the content walk, Form
// XObjects included), each with the character codes it shows and the pages
// it is used on: the font rules of 7.21 check fonts "used for rendering",
// and the Unicode rules each code shown.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { PdfDict, PdfStream } from '../../untrusted/pdf-values.js';
import { parseCMap, splitCodes, type CMapProgram } from '../cmap.js';
import type { MarkedContent } from './marked-content.js';

export interface UsedFont {
  readonly dict: PdfDict;
  /** The resource name it was selected by, for messages. */
  readonly resourceName: string;
  readonly pages: Set<number>;
  /** Codes shown in a visible rendering mode (not 3). */
  readonly codes: Set<number>;
  /** Shown at least once in a rendering mode other than 3 (invisible). */
  visible: boolean;
  /** The ToUnicode CMap, parsed; undefined without one. */
  readonly toUnicode: CMapProgram | undefined;
  /** Type0: the descendant CIDFont. */
  readonly descendant: PdfDict | undefined;
  /** Type0: the embedded CMap program, when /Encoding is a stream. */
  readonly embeddedCMap: { readonly stream: PdfStream; readonly program: CMapProgram } | undefined;
}

/** Distinct codes kept per font: enough for any alphabet, bounded for a hostile file. */
const MAX_CODES_PER_FONT = 70_000;

export function usedFonts(pdf: PdfObjects, content: MarkedContent): UsedFont[] {
  const fonts = new Map<PdfDict, UsedFont>();
  for (const item of content.items) {
    if (item.kind !== 'text' || item.font === undefined) continue;
    let used = fonts.get(item.font);
    if (used === undefined) {
      const dict = item.font;
      const toUnicodeStream = pdf.stream(dict.get('ToUnicode'));
      const toUnicodeBytes = toUnicodeStream?.decoded();
      const encodingStream = pdf.stream(dict.get('Encoding'));
      const cmapBytes = encodingStream?.decoded();
      used = {
        dict,
        resourceName: item.fontName ?? '',
        pages: new Set(),
        codes: new Set(),
        visible: false,
        toUnicode: toUnicodeBytes === undefined ? undefined : parseCMap(toUnicodeBytes),
        descendant: dict.name('Subtype') === 'Type0' ? pdf.dict(pdf.array(dict.get('DescendantFonts'))?.[0]) : undefined,
        embeddedCMap: encodingStream === undefined || cmapBytes === undefined ? undefined : { stream: encodingStream, program: parseCMap(cmapBytes) },
      };
      fonts.set(dict, used);
    }
    used.pages.add(item.page);
    if (item.renderMode === 3) continue;
    used.visible = true;
    const composite = used.dict.name('Subtype') === 'Type0';
    const codespaces = used.embeddedCMap?.program.codespaces ?? [];
    for (const bytes of item.strings ?? []) {
      for (const code of composite ? splitCodes(bytes, codespaces, 2) : bytes) {
        if (used.codes.size < MAX_CODES_PER_FONT) used.codes.add(code);
      }
    }
  }
  return [...fonts.values()];
}

export function fontLabel(pdf: PdfObjects, font: UsedFont): string {
  return `font ${font.resourceName} (${pdf.name(font.dict.get('BaseFont')) ?? 'no BaseFont'})`;
}
