// Overwrites the pixels of an image XObject under redaction areas (part of
// pdf-redaction.ts's seam: pdf-lib for the objects, sharp for JPEG). The
// copy is written Flate-encoded with the same colour space and bits per
// component, so what was under an area is gone from the file, not hidden.
// Encodings read: unfiltered, Flate (PNG predictors), DCT (JPEG, through
// sharp), at 8 bits per component in Gray/RGB/CMYK/ICCBased/Cal spaces, and
// 1-bit images and image masks. Anything else (JPX, JBIG2, CCITT, indexed
// colour, 2/4/16 bits) answers null and the caller drops the image whole.
// A soft mask (/SMask) is made opaque under the areas the same way, or
// dropped when it cannot be read, so its shape cannot carry what was there.
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, decodePDFRawStream, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import sharp from './vips.js';
import { undoPngPredictors } from '../untrusted/png-predictors.js';

/** Column, row, columns, rows; row 0 is the image's top. */
export type PixelRect = readonly [number, number, number, number];

interface Samples {
  readonly components: number;
  readonly bits: 1 | 8;
  /** Unpacked: one byte per sample, 0/1 for 1-bit images. */
  readonly data: Uint8Array;
}

/** Bytes of decoded samples one image may have: a 10,000 x 10,000 CMYK image. */
const MAX_SAMPLES = 400_000_000;

export async function redactImagePixels(doc: PDFDocument, stream: PDFRawStream, rects: readonly PixelRect[], fill: readonly [number, number, number]): Promise<PDFRawStream | null> {
  const dict = stream.dict;
  const width = numberOf(doc, dict.get(PDFName.of('Width')));
  const height = numberOf(doc, dict.get(PDFName.of('Height')));
  if (width === undefined || height === undefined || width < 1 || height < 1) return null;
  const mask = doc.context.lookup(dict.get(PDFName.of('ImageMask')))?.toString() === 'true';
  const components = mask ? 1 : componentsOf(doc, dict.get(PDFName.of('ColorSpace')));
  if (components === undefined) return null;
  const samples = await decodeSamples(doc, stream, width, height, components, mask ? 1 : undefined);
  if (samples === null) return null;
  let value: number[];
  if (samples.bits === 1) {
    // An image mask paints where the sample decodes to 0 (section 8.9.6.2): the area gets the value that does not paint.
    const inverted = decodeInverted(doc, dict);
    value = [mask ? (inverted ? 0 : 1) : (luminance(fill) >= 128) !== inverted ? 1 : 0];
  } else {
    value = samples.components === 1 ? [luminance(fill)] : samples.components === 3 ? [...fill] : samples.components === 4 ? cmyk(fill) : new Array<number>(samples.components).fill(0);
  }
  paint(samples, width, rects, value);
  const copy = dict.clone(doc.context);
  for (const key of ['Filter', 'DecodeParms', 'Length', 'SMask']) copy.delete(PDFName.of(key));
  if (samples.components !== components) {
    // sharp turned a CMYK JPEG into RGB: the copy says so, and the JPEG's Decode array no longer applies.
    copy.set(PDFName.of('ColorSpace'), PDFName.of(samples.components === 1 ? 'DeviceGray' : 'DeviceRGB'));
    copy.delete(PDFName.of('Decode'));
  }
  const softMask = doc.context.lookup(dict.get(PDFName.of('SMask')));
  if (softMask instanceof PDFRawStream) {
    const opaque = await redactSoftMask(doc, softMask, rects, width, height);
    if (opaque !== null) copy.set(PDFName.of('SMask'), doc.context.register(opaque));
  }
  const out = doc.context.flateStream(pack(samples, width, height), {});
  for (const [key, entry] of copy.entries()) out.dict.set(key, entry);
  return out;
}

/** The soft mask, opaque under the areas (scaled to its own size); null when it cannot be read (the copy goes without it). */
async function redactSoftMask(doc: PDFDocument, stream: PDFRawStream, rects: readonly PixelRect[], width: number, height: number): Promise<PDFRawStream | null> {
  const maskWidth = numberOf(doc, stream.dict.get(PDFName.of('Width')));
  const maskHeight = numberOf(doc, stream.dict.get(PDFName.of('Height')));
  if (maskWidth === undefined || maskHeight === undefined || maskWidth < 1 || maskHeight < 1) return null;
  const samples = await decodeSamples(doc, stream, maskWidth, maskHeight, 1, undefined);
  if (samples === null || samples.bits !== 8) return null;
  const sx = maskWidth / width;
  const sy = maskHeight / height;
  const scaled = rects.map(([x, y, w, h]) => {
    const x0 = Math.floor(x * sx);
    const y0 = Math.floor(y * sy);
    return [x0, y0, Math.ceil((x + w) * sx) - x0, Math.ceil((y + h) * sy) - y0] as const;
  });
  paint(samples, maskWidth, scaled, [255]);
  const copy = stream.dict.clone(doc.context);
  for (const key of ['Filter', 'DecodeParms', 'Length', 'Decode']) copy.delete(PDFName.of(key));
  const out = doc.context.flateStream(samples.data, {});
  for (const [key, entry] of copy.entries()) out.dict.set(key, entry);
  return out;
}

async function decodeSamples(doc: PDFDocument, stream: PDFRawStream, width: number, height: number, components: number, forcedBits: 1 | undefined): Promise<Samples | null> {
  const dict = stream.dict;
  const filters = filterNames(doc, dict.get(PDFName.of('Filter')));
  if (filters === null) return null;
  const bits = forcedBits ?? numberOf(doc, dict.get(PDFName.of('BitsPerComponent')));
  if (width * height * components > MAX_SAMPLES) return null;
  if (filters.at(-1) === 'DCTDecode') {
    if (filters.length !== 1) return null;
    try {
      const { data, info } = await sharp(stream.contents, { failOn: 'error' }).raw().toBuffer({ resolveWithObject: true });
      if (info.width !== width || info.height !== height) return null;
      return { components: info.channels, bits: 8, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
    } catch {
      return null;
    }
  }
  if (bits !== 1 && bits !== 8) return null;
  if (filters.some((name) => !['FlateDecode', 'LZWDecode', 'ASCIIHexDecode', 'ASCII85Decode', 'RunLengthDecode'].includes(name))) return null;
  let bytes: Uint8Array;
  try {
    bytes = decodePDFRawStream(stream).decode();
  } catch {
    return null;
  }
  const rowBytes = Math.ceil((width * components * bits) / 8);
  const params = doc.context.lookup(dict.get(PDFName.of('DecodeParms')));
  const predictor = params instanceof PDFDict ? (numberOf(doc, params.get(PDFName.of('Predictor'))) ?? 1) : 1;
  if (predictor >= 10) {
    const unpredicted = undoPngPredictors(bytes, rowBytes, Math.max(1, Math.ceil((components * bits) / 8)), height);
    if (unpredicted === undefined) return null;
    bytes = unpredicted;
  } else if (predictor !== 1) {
    return null;
  }
  if (bytes.length < rowBytes * height) return null;
  if (bits === 8) return { components, bits, data: bytes.slice(0, rowBytes * height) };
  const data = new Uint8Array(width * height * components);
  for (let row = 0; row < height; row++) {
    for (let i = 0; i < width * components; i++) data[row * width * components + i] = ((bytes[row * rowBytes + (i >> 3)] as number) >> (7 - (i & 7))) & 1;
  }
  return { components, bits: 1, data };
}

function paint(samples: Samples, width: number, rects: readonly PixelRect[], value: readonly number[]): void {
  const { components, data } = samples;
  const height = data.length / (width * components);
  for (const [x, y, w, h] of rects) {
    for (let row = Math.max(0, y); row < Math.min(height, y + h); row++) {
      for (let column = Math.max(0, x); column < Math.min(width, x + w); column++) {
        const at = (row * width + column) * components;
        for (let k = 0; k < components; k++) data[at + k] = value[k] ?? 0;
      }
    }
  }
}

function pack(samples: Samples, width: number, height: number): Uint8Array {
  if (samples.bits === 8) return samples.data;
  const perRow = width * samples.components;
  const rowBytes = Math.ceil(perRow / 8);
  const out = new Uint8Array(rowBytes * height);
  for (let row = 0; row < height; row++) {
    for (let i = 0; i < perRow; i++) if (samples.data[row * perRow + i] === 1) out[row * rowBytes + (i >> 3)] = (out[row * rowBytes + (i >> 3)] as number) | (0x80 >> (i & 7));
  }
  return out;
}

function componentsOf(doc: PDFDocument, value: PDFObject | undefined): number | undefined {
  const space = doc.context.lookup(value);
  const name = space instanceof PDFName ? space.decodeText() : space instanceof PDFArray ? nameAt(doc, space, 0) : undefined;
  switch (name) {
    case 'DeviceGray':
    case 'CalGray':
    case 'G':
      return 1;
    case 'DeviceRGB':
    case 'CalRGB':
    case 'RGB':
      return 3;
    case 'DeviceCMYK':
    case 'CMYK':
      return 4;
    case 'ICCBased': {
      const profile = space instanceof PDFArray ? doc.context.lookup(space.get(1)) : undefined;
      const n = profile instanceof PDFRawStream ? numberOf(doc, profile.dict.get(PDFName.of('N'))) : undefined;
      return n === 1 || n === 3 || n === 4 ? n : undefined;
    }
    default:
      return undefined;
  }
}

function filterNames(doc: PDFDocument, value: PDFObject | undefined): string[] | null {
  const filter = doc.context.lookup(value);
  if (filter === undefined) return [];
  if (filter instanceof PDFName) return [filter.decodeText()];
  if (!(filter instanceof PDFArray)) return null;
  const names = filter.asArray().map((item) => doc.context.lookup(item));
  return names.every((item) => item instanceof PDFName) ? names.map((item) => (item as PDFName).decodeText()) : null;
}

function decodeInverted(doc: PDFDocument, dict: PDFDict): boolean {
  const decode = doc.context.lookup(dict.get(PDFName.of('Decode')));
  return decode instanceof PDFArray && numberOf(doc, decode.get(0)) === 1;
}

function nameAt(doc: PDFDocument, array: PDFArray, index: number): string | undefined {
  const item = doc.context.lookup(array.get(index));
  return item instanceof PDFName ? item.decodeText() : undefined;
}

function numberOf(doc: PDFDocument, value: PDFObject | undefined): number | undefined {
  const resolved = doc.context.lookup(value);
  return resolved instanceof PDFNumber ? resolved.asNumber() : undefined;
}

function luminance([r, g, b]: readonly [number, number, number]): number {
  return Math.round(0.299 * r + 0.587 * g + 0.114 * b);
}

function cmyk([r, g, b]: readonly [number, number, number]): number[] {
  const k = 1 - Math.max(r, g, b) / 255;
  if (k >= 1) return [0, 0, 0, 255];
  return [(1 - r / 255 - k) / (1 - k), (1 - g / 255 - k) / (1 - k), (1 - b / 255 - k) / (1 - k), k].map((v) => Math.round(v * 255));
}
