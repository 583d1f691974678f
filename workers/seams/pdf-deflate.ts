// Flate for the PDFs pdf-lib writes, with node:zlib: part of the PDF seam
// (pdf.ts). pdf-lib deflates with fflate, JavaScript that measured 2-3x the
// CPU of node's native zlib on the same bytes (a 10 KB content stream: 330
// against 115 µs; a 6 KB one: 140 against 70 µs, bench figures of issue 14).
// Same format (zlib/Flate, RFC 1950/1951), so every reader accepts either.
import { deflateSync } from 'node:zlib';
import { PDFFlateStream, type PDFContext } from '@cantoo/pdf-lib';
import { BoundedMap } from '../util/bounded-map.js';

/** Deflated bytes of immutable inputs we produced (memoized subsets), by identity. */
const deflated = new WeakMap<Uint8Array, Buffer>();

/**
 * A custom font's ToUnicode CMap is, like its subset (fonts-parse.ts), a
 * pure function of the font and the glyphs a document uses, so documents
 * made from one template deflate the same CMap every time: measured 0.3 ms
 * a font per document, about 6% of a letter in two registered fonts (the
 * deflate of a fresh zlib stream, not the CMap's text). Kept by content, in
 * a bounded memo: a CMap of a few hundred glyphs is ~10 KB of text.
 */
const CMAP_START = '/CIDInit /ProcSet findresource begin';
const deflatedCmaps = new BoundedMap<string, Buffer>(512, 16 * 1024 * 1024, (cmap, out) => cmap.length + out.byteLength);

/**
 * Content streams (the operators we write) are deflated at level 5, not
 * zlib's default 6: on the bench letter's page, 82 against 130 µs in
 * registered fonts (10 KB of operators, hex glyph codes), 93 against 130
 * tagged, 49 against 68 in the standard fonts, for streams 2-2.5% larger
 * (2,357 against 2,301 bytes; measured for issue 14). Every page pays it
 * once; what is memoized (subsets, CMaps) keeps the default.
 */
const CONTENT_LEVEL = 5;

function deflate(contents: string | Uint8Array): Buffer {
  if (typeof contents === 'string') {
    if (!contents.startsWith(CMAP_START)) return deflateSync(Buffer.from(contents, 'latin1'), { level: CONTENT_LEVEL });
    let cmap = deflatedCmaps.get(contents);
    if (cmap === undefined) {
      cmap = deflateSync(Buffer.from(contents, 'latin1'));
      deflatedCmaps.set(contents, cmap);
    }
    return cmap;
  }
  let out = deflated.get(contents);
  if (out === undefined) {
    out = deflateSync(contents);
    deflated.set(contents, out);
  }
  return out;
}

/** Every stream a document's code asks pdf-lib to deflate (content, font files, CMaps) goes through node:zlib. */
export function deflateWithZlib(context: PDFContext): void {
  context.flateStream = (contents, dict = {}) => context.stream(deflate(contents), { ...dict, Filter: 'FlateDecode' });
}

// --- pdf-lib's own streams -------------------------------------------------

/**
 * The object streams and the cross-reference stream pdf-lib builds when
 * saving are PDFFlateStreams, which deflate with fflate in a closure each
 * instance makes in its constructor (`computeContents`, handed to a Cache
 * as its `populate`), so no method can be replaced: the first time a
 * stream's contents are asked for, its cache is pointed at node:zlib
 * instead. Its invalidation (the cross-reference stream invalidates when
 * entries are added) keeps working: the cache object stays the same. A
 * stream whose contents were set explicitly (updateContents: a new cache)
 * is left alone. They were ~6% of a letter in registered fonts and ~7% of
 * a tagged letter (profiles of the render task, issue 14).
 */
interface FlateStreamInternals {
  readonly encode: boolean;
  readonly computeContents: () => Uint8Array;
  contentsCache: { populate: () => Uint8Array };
  getUnencodedContents(): Uint8Array;
}

/**
 * Object streams are deflated at zlib level 3: a tagged file's are mostly
 * its structure elements, short dictionaries much alike, which level 3
 * packs within 6% of level 6 at about a third of the time (a 10-page tagged
 * invoice's 90 KB: 0.73 against 1.97 ms, 16,989 against 16,071 bytes;
 * level 1 took 1.07 ms; medians of 30 runs).
 */
const OBJECT_STREAM_LEVEL = 3;

function useZlib(stream: FlateStreamInternals): void {
  const cache = stream.contentsCache;
  if (stream.encode && cache.populate === stream.computeContents) cache.populate = () => deflateSync(stream.getUnencodedContents(), { level: OBJECT_STREAM_LEVEL });
}

const prototype = PDFFlateStream.prototype as unknown as { getContents(): Uint8Array; getContentsSize(): number };
const getContents = prototype.getContents;
const getContentsSize = prototype.getContentsSize;
prototype.getContents = function (this: FlateStreamInternals & typeof prototype) {
  useZlib(this);
  return getContents.call(this);
};
prototype.getContentsSize = function (this: FlateStreamInternals & typeof prototype) {
  useZlib(this);
  return getContentsSize.call(this);
};
