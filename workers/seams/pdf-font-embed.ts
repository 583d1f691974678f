// Writes a custom font's subset into a document (part of the PDF seam,
// pdf.ts): the objects pdf-lib's CustomFontSubsetEmbedder writes, with the
// same bytes, built for less. pdf-lib rebuilt per document what is a
// function of the face alone (the descriptor's metrics, read from the
// font's tables through fontkit's getters each time) and built the widths
// array as a PDFNumber object per glyph, sized and copied one by one when
// saving. Embedding the three DejaVu faces of a tagged letter was ~8% of its
// CPU (--cpu-prof of the render task, issue 15).
import { PDFString, type PDFContext, type PDFFont, type PDFRef } from '@cantoo/pdf-lib';
import { SerializedObject } from './pdf-serialized.js';

/** What embedding reads of a glyph: its id in the face, advance, and the characters it was drawn for. */
interface SubsetGlyph {
  readonly id: number;
  readonly advanceWidth: number;
  readonly codePoints: readonly number[];
}

/** The fontkit tables deriveFontFlags reads (pdf-lib's FontFlags.ts, after pdfkit). */
interface FaceTables {
  readonly unitsPerEm: number;
  readonly italicAngle: number;
  readonly ascent: number;
  readonly descent: number;
  readonly capHeight?: number;
  readonly xHeight?: number;
  readonly bbox: { readonly minX: number; readonly minY: number; readonly maxX: number; readonly maxY: number };
  readonly 'OS/2'?: { readonly sFamilyClass?: number };
  readonly post?: { readonly isFixedPitch?: unknown };
  readonly head?: { readonly macStyle?: { readonly italic?: unknown } };
}

/** The parts of pdf-lib's CustomFontSubsetEmbedder this module reads (checked by subsetEmbedderOf). */
interface SubsetEmbedder {
  readonly font: FaceTables;
  readonly customName?: string;
  /** The subset's glyphs, glyphs[i] having the subset's glyph id (and CID) i + 1. */
  readonly glyphs: readonly SubsetGlyph[];
  baseFontName: string;
  isCFF(): unknown;
  serializeFont(): Promise<Uint8Array>;
  embedIntoContext(context: PDFContext, ref?: PDFRef): Promise<PDFRef>;
}

/** The descriptor's entries that depend on the face alone (ISO 32000-1 §9.8), as pdf-lib computes them. */
interface FaceDescriptor {
  readonly flags: number;
  readonly bbox: readonly [number, number, number, number];
  readonly italicAngle: number;
  readonly ascent: number;
  readonly descent: number;
  readonly capHeight: number;
  readonly xHeight: number;
}

/** By fontkit face: parsed faces are shared by every document of the worker (fonts-parse.ts). */
const descriptors = new WeakMap<FaceTables, FaceDescriptor>();

function descriptorOf(font: FaceTables): FaceDescriptor {
  let descriptor = descriptors.get(font);
  if (descriptor === undefined) {
    const scale = 1000 / font.unitsPerEm;
    const { minX, minY, maxX, maxY } = font.bbox;
    const familyClass = font['OS/2']?.sFamilyClass ?? 0;
    // pdf-lib's deriveFontFlags: FixedPitch (bit 1), Serif (2), Symbolic (3, always), Script (4), Italic (7).
    let flags = 1 << 2;
    if (font.post?.isFixedPitch) flags |= 1 << 0;
    if (familyClass >= 1 && familyClass <= 7) flags |= 1 << 1;
    if (familyClass === 10) flags |= 1 << 3;
    if (font.head?.macStyle?.italic) flags |= 1 << 6;
    descriptor = {
      flags,
      bbox: [minX * scale, minY * scale, maxX * scale, maxY * scale],
      italicAngle: font.italicAngle,
      ascent: font.ascent * scale,
      descent: font.descent * scale,
      capHeight: (font.capHeight || font.ascent) * scale,
      xHeight: (font.xHeight || 0) * scale,
    };
    descriptors.set(font, descriptor);
  }
  return descriptor;
}

/**
 * The CIDFont's /W array as pdf-lib's computeWidths gives it: the subset's
 * CIDs are 1..n without gaps, so one run `[1 [w1 ... wn]]`, each width as
 * pdf-lib's PDFNumber writes it (numberToString: no exponent).
 */
function widthsOf(glyphs: readonly SubsetGlyph[], scale: number): SerializedObject {
  let text = '[ 1 [ ';
  for (let i = 0; i < glyphs.length; i++) text += `${numberText((glyphs[i] as SubsetGlyph).advanceWidth * scale)} `;
  return new SerializedObject(`${text}] ]`);
}

/** pdf-lib's numberToString for the values a width takes: String(n) unless that uses an exponent. */
function numberText(value: number): string {
  const text = String(value);
  return text.includes('e') ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

const hex4 = (value: number): string => value.toString(16).toUpperCase().padStart(4, '0');

/** The ToUnicode CMap text pdf-lib's createCmap writes (CMap.ts), byte for byte, so pdf-deflate.ts's memo of deflated CMaps still hits. */
function toUnicodeCmap(glyphs: readonly SubsetGlyph[]): string {
  let chars = '';
  for (let i = 0; i < glyphs.length; i++) {
    const glyph = glyphs[i] as SubsetGlyph;
    let unicode = '';
    for (const codePoint of glyph.codePoints) {
      if (codePoint < 0x10000) unicode += hex4(codePoint);
      else if (codePoint <= 0x10ffff) unicode += hex4(0xd800 + ((codePoint - 0x10000) >> 10)) + hex4(0xdc00 + ((codePoint - 0x10000) & 0x3ff));
      else throw new Error(`pdf: glyph ${glyph.id} maps to a code point beyond Unicode`);
    }
    chars += `${i === 0 ? '' : '\n'}<${hex4(i + 1)}> <${unicode}>`;
  }
  return (
    '/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo <<\n  /Registry (Adobe)\n  /Ordering (UCS)\n  /Supplement 0\n>> def\n' +
    `/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000><ffff>\nendcodespacerange\n${glyphs.length} beginbfchar\n${chars}\nendbfchar\n` +
    'endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend'
  );
}

/** The Type0 font, its CIDFontType2 (or 0 for CFF) descendant, descriptor, font file and ToUnicode CMap, as pdf-lib writes them. */
async function embedSubset(embedder: SubsetEmbedder, context: PDFContext, ref: PDFRef | undefined): Promise<PDFRef> {
  const name = embedder.customName || context.addRandomSuffix((embedder.font as { postscriptName?: string }).postscriptName || 'Font');
  embedder.baseFontName = name;
  const cff = Boolean(embedder.isCFF());
  const fontFile = context.register(context.flateStream(await embedder.serializeFont(), { Subtype: cff ? 'CIDFontType0C' : undefined }));
  const face = descriptorOf(embedder.font);
  const descriptor = context.register(
    context.obj({
      Type: 'FontDescriptor',
      FontName: name,
      Flags: face.flags,
      FontBBox: [...face.bbox],
      ItalicAngle: face.italicAngle,
      Ascent: face.ascent,
      Descent: face.descent,
      CapHeight: face.capHeight,
      XHeight: face.xHeight,
      StemV: 0,
      [cff ? 'FontFile3' : 'FontFile2']: fontFile,
    }),
  );
  const glyphs = embedder.glyphs;
  const cidFont = context.register(
    context.obj({
      Type: 'Font',
      Subtype: cff ? 'CIDFontType0' : 'CIDFontType2',
      CIDToGIDMap: 'Identity',
      BaseFont: name,
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
      FontDescriptor: descriptor,
      W: glyphs.length === 0 ? [] : widthsOf(glyphs, 1000 / embedder.font.unitsPerEm),
    }),
  );
  const toUnicode = context.register(context.flateStream(toUnicodeCmap(glyphs)));
  const fontDict = context.obj({ Type: 'Font', Subtype: 'Type0', BaseFont: name, Encoding: 'Identity-H', DescendantFonts: [cidFont], ToUnicode: toUnicode });
  if (ref === undefined) return context.register(fontDict);
  context.assign(ref, fontDict);
  return ref;
}

function hasHoles(glyphs: readonly (SubsetGlyph | undefined)[]): boolean {
  for (let i = 0; i < glyphs.length; i++) if (glyphs[i] === undefined) return true;
  return false;
}

/**
 * Makes `native` (a subset font pdf-lib embedded) write its objects through
 * embedSubset. A pdf-lib whose embedder differs from the one this was
 * written for keeps its own embedding (slower, the same objects).
 */
export function embedSubsetsFaster(native: PDFFont): void {
  const embedder = (native as unknown as { embedder?: Partial<SubsetEmbedder> & { glyphCache?: unknown } }).embedder;
  if (embedder === undefined || embedder === null) return;
  const fits =
    Array.isArray(embedder.glyphs) &&
    typeof embedder.isCFF === 'function' &&
    typeof embedder.serializeFont === 'function' &&
    typeof embedder.embedIntoContext === 'function' &&
    typeof embedder.font?.unitsPerEm === 'number' &&
    typeof embedder.baseFontName === 'string';
  if (!fits) return;
  const subsetEmbedder = embedder as SubsetEmbedder;
  const own = subsetEmbedder.embedIntoContext.bind(subsetEmbedder);
  // A glyph list with a hole (a subset id no text drew) would not be one run of widths: pdf-lib's own code writes that.
  subsetEmbedder.embedIntoContext = (context, ref) => (hasHoles(subsetEmbedder.glyphs) ? own(context, ref) : embedSubset(subsetEmbedder, context, ref));
}
