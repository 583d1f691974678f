// The glyphs of a TrueType font subset, from a memo of what the subsetter
// reads per glyph (for fonts-parse.ts, which owns fontkit: this module only
// sees the face and the subset through the few members it uses).
import { BoundedMap } from '../util/bounded-map.js';

/**
 * What fontkit's TrueType subsetter takes from the face for each glyph it
 * writes (TTFSubset._addGlyph): the glyph's bytes in glyf, the components
 * of a composite glyph (their glyph ids and where the bytes name them),
 * its advance and left side bearing. _addGlyph decodes the glyph's whole
 * outline (points, flags, coordinates) to learn whether it is composite,
 * for every glyph of every subset: ~15% of a tagged letter whose text
 * varies per request, where fonts-parse.ts's subset memo cannot hit (--cpu-prof,
 * issue 15). A pure function of the face and the glyph id, so kept per
 * worker, in one budget by bytes.
 */
interface GlyphRecord {
  readonly bytes: Uint8Array;
  readonly components: ReadonlyArray<{ readonly glyphID: number; readonly pos: number }> | undefined;
  readonly advance: number;
  readonly bearing: number;
}

const GLYPH_RECORDS_MAX = 200_000;
const GLYPH_RECORDS_MAX_BYTES = 32 * 1024 * 1024;
const glyphRecords = new BoundedMap<string, GlyphRecord>(GLYPH_RECORDS_MAX, GLYPH_RECORDS_MAX_BYTES, (key, record) => key.length + record.bytes.byteLength + 64);

/** fontkit's TTFSubset, as much of it as _addGlyph touches. */
interface TrueTypeSubset {
  glyf: Uint8Array[];
  offset: number;
  loca: { offsets: number[] };
  hmtx: { metrics: Array<{ advance: number; bearing: number }> };
  includeGlyph(glyph: number): number;
  _addGlyph(gid: number): number;
}

/** The face as the subsetter reads it. */
interface TrueTypeFace {
  readonly type?: string;
  readonly _variationProcessor?: unknown; // null when the font has no variations
  readonly loca: { readonly offsets: readonly number[] };
  getGlyph(gid: number): { readonly advanceWidth: number; _decode(): { numberOfContours: number; components?: Array<{ glyphID: number; pos: number }> } | null; _getMetrics(): { leftBearing: number } };
  _getTableStream(tag: string): { pos: number; readBuffer(length: number): Uint8Array };
}

function recordOf(hash: string, face: TrueTypeFace, gid: number): GlyphRecord {
  const key = `${hash}:${gid}`;
  let record = glyphRecords.get(key);
  if (record === undefined) {
    // As _addGlyph reads them (fontkit 2.0.4, module.mjs TTFSubset).
    const glyph = face.getGlyph(gid);
    const glyf = glyph._decode();
    const start = face.loca.offsets[gid] as number;
    const stream = face._getTableStream('glyf');
    stream.pos += start;
    const bytes = stream.readBuffer((face.loca.offsets[gid + 1] as number) - start);
    const components = glyf !== null && glyf.numberOfContours < 0 ? (glyf.components ?? []).map(({ glyphID, pos }) => ({ glyphID, pos })) : undefined;
    record = { bytes, components, advance: glyph.advanceWidth, bearing: glyph._getMetrics().leftBearing };
    glyphRecords.set(key, record);
  }
  return record;
}

/**
 * Makes a TrueType subset take its glyphs from the records above instead
 * of decoding each one; the font it writes is the same, byte for byte
 * (test/unit/font-subset-records.test.ts). Other subsets (CFF, variable
 * fonts, whose glyphs fontkit re-encodes) are left as they are.
 */
export function copyGlyphsFromMemo(hash: string, font: object, subset: unknown): void {
  const face = font as TrueTypeFace;
  const target = subset as Partial<TrueTypeSubset>;
  if (face.type !== 'TTF' || (face._variationProcessor ?? undefined) !== undefined || typeof target._addGlyph !== 'function' || typeof target.includeGlyph !== 'function') return;
  const trueType = target as TrueTypeSubset;
  trueType._addGlyph = (gid: number): number => {
    const record = recordOf(hash, face, gid);
    let bytes = record.bytes;
    if (record.components !== undefined) {
      bytes = new Uint8Array(bytes);
      const view = new DataView(bytes.buffer);
      for (const component of record.components) view.setUint16(component.pos, trueType.includeGlyph(component.glyphID));
    }
    trueType.glyf.push(bytes);
    trueType.loca.offsets.push(trueType.offset);
    trueType.hmtx.metrics.push({ advance: record.advance, bearing: record.bearing });
    trueType.offset += bytes.length;
    return trueType.glyf.length - 1;
  };
}
