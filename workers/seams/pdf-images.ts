// What a PDF says about its images' pixels (colour space, bits per
// component, filter), read with pdf-lib behind this seam: pdf.js hands over
// decoded pixels only. Used by POST /v1/parse with extract_images, so only
// documents whose images are asked for pay for a second parse.
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFNumber, PDFRawStream, type PDFObject } from '@cantoo/pdf-lib';
import { openSource } from './pdf-structure.js';

export interface ImageDictionary {
  readonly width: number;
  readonly height: number;
  readonly colorSpace: string | null;
  readonly bitsPerComponent: number | null;
  readonly filter: string | null;
}

/** Form XObjects nest; a hostile file may nest them without end. */
const MAX_FORM_DEPTH = 16;
const MAX_IMAGES_PER_PAGE = 10_000;

/** Opens the document for image lookups; null when pdf-lib cannot read it (the caller reports the images without these facts). */
export async function openImageIndex(bytes: Uint8Array, password: string | undefined): Promise<((pageIndex: number) => ImageDictionary[]) | null> {
  let doc: PDFDocument;
  try {
    // Decrypted as it loads (an owner-password-only file with the empty password), so encrypted object streams can be read.
    doc = await openSource(bytes, password);
  } catch {
    return null;
  }
  const pages = doc.getPages();
  return (pageIndex) => {
    const page = pages[pageIndex];
    if (page === undefined) return [];
    const found: ImageDictionary[] = [];
    try {
      collect(doc, page.node.Resources(), found, 0, new Set());
    } catch {
      // A broken resource dictionary: what was found so far stands.
    }
    return found;
  };
}

function collect(doc: PDFDocument, resources: PDFDict | undefined, found: ImageDictionary[], depth: number, seen: Set<PDFObject>): void {
  const xobjects = resources === undefined ? undefined : doc.context.lookup(resources.get(PDFName.of('XObject')));
  if (!(xobjects instanceof PDFDict)) return;
  for (const [, entry] of xobjects.entries()) {
    const stream = doc.context.lookup(entry);
    if (!(stream instanceof PDFRawStream) || seen.has(stream) || found.length >= MAX_IMAGES_PER_PAGE) continue;
    seen.add(stream);
    const dict = stream.dict;
    const subtype = dict.get(PDFName.of('Subtype'))?.toString();
    if (subtype === '/Image') {
      found.push({
        width: numberOf(doc, dict.get(PDFName.of('Width'))) ?? 0,
        height: numberOf(doc, dict.get(PDFName.of('Height'))) ?? 0,
        colorSpace: colourSpaceOf(doc, dict.get(PDFName.of('ColorSpace'))),
        bitsPerComponent: numberOf(doc, dict.get(PDFName.of('BitsPerComponent'))),
        filter: filterOf(doc, dict.get(PDFName.of('Filter'))),
      });
    } else if (subtype === '/Form' && depth < MAX_FORM_DEPTH) {
      const inner = doc.context.lookup(dict.get(PDFName.of('Resources')));
      collect(doc, inner instanceof PDFDict ? inner : undefined, found, depth + 1, seen);
    }
  }
}

function numberOf(doc: PDFDocument, value: PDFObject | undefined): number | null {
  const resolved = doc.context.lookup(value);
  return resolved instanceof PDFNumber ? resolved.asNumber() : null;
}

function nameOf(value: PDFObject | undefined): string | null {
  return value instanceof PDFName ? value.decodeText() : null;
}

/** A name (DeviceRGB), or an array's family name ([/ICCBased 12 0 R] is ICCBased). */
function colourSpaceOf(doc: PDFDocument, value: PDFObject | undefined): string | null {
  const resolved = doc.context.lookup(value);
  if (resolved instanceof PDFArray) return nameOf(doc.context.lookup(resolved.get(0)));
  return nameOf(resolved);
}

/** The last filter applied when reading, i.e. the image's own encoding (DCTDecode after FlateDecode...). */
function filterOf(doc: PDFDocument, value: PDFObject | undefined): string | null {
  const resolved = doc.context.lookup(value);
  if (resolved instanceof PDFArray) return resolved.size() === 0 ? null : nameOf(doc.context.lookup(resolved.get(resolved.size() - 1)));
  return nameOf(resolved);
}
