// The decoded-bytes budget (untrusted/decoded-bytes.ts) in front of qpdf.
// qpdf runs in this thread as WebAssembly and cannot be interrupted or
// hooked: it inflates in bounded memory, so a deflate bomb costs it CPU
// (256 MiB of spaces: 6 s to linearize; 768 MiB of image samples: 30 s)
// until PLATEN_TIMEOUT_MS ends the task with a 504. So what a run will
// decode is counted before it starts, from the file's bytes
// (untrusted/pdf-streams.ts), with node:zlib (2 GB/s, 30 times qpdf's
// WebAssembly), and charged to the task's budget: past the cap the task
// fails with 422 pdf-limits-exceeded before qpdf runs.
//
// Only what qpdf decodes is counted, measured on this build (qpdf 12.2) by
// what it rewrote (same file, one filter per case):
// - always: object and cross-reference streams (to read the objects), and
//   every XMP stream (/Type /Metadata /Subtype /XML: qpdf writes the
//   catalog's uncompressed, even with --stream-data=preserve);
// - writing with --compress-streams=y (qpdf's default): every stream whose
//   filters are all Flate, LZW, ASCII85 or ASCIIHex, except one with the
//   single name /FlateDecode (or /Fl), which is copied as it is;
//   RunLength and image filters are copied as they are;
// - with --recompress-flate: those single-Flate streams too;
// - page contents, when the run removes unreferenced resources
//   (--remove-unreferenced-resources=yes, or qpdf's default `auto` under
//   --pages when the source shares resources between pages): qpdf parses
//   every page's content and form XObject. From the bytes alone a content
//   stream is told apart only by what it is not (an image, a font program,
//   an ICC profile, an embedded file), so all such streams are counted.
// A single-Flate content stream of 256 MiB under `qpdf --linearize` costs
// 70 ms (copied) and is not counted; the same stream under `--pages` with
// shared resources cost 3.8 s of CPU and is. When the most all that could
// decode to fits in what the budget has left, nothing is decoded ahead:
// the worst case is set aside instead (DecodedBudget.reserve).
//
// Dictionaries are read where qpdf reads them (pdf-streams.ts). A stream
// whose dictionary is not read here (the cross-reference sections could not
// be, or /Filter is written indirectly) is counted as the Flate layers its
// data shows, whatever the run: more than qpdf would decode, never less. An
// encrypted file's streams cannot be decoded here, so merge, split and
// optimize count such a file in the clear: qpdf-decrypt.ts has qpdf decrypt
// it without decoding its streams, after counting what that pass does
// decode (object streams and XMP, decrypted there with qpdf's key when
// their worst case does not fit), and hands this count the result
// (linearize refuses encrypted files).
import { constants, inflateSync } from 'node:zlib';
import { chargeFilterChain, currentDecodedBudget, type FilterStep } from '../untrusted/decoded-bytes.js';
import { filtersOf, rawStreams, type RawStream } from '../untrusted/pdf-streams.js';
import { PdfName, type PdfDict } from '../untrusted/pdf-values.js';

/** What one qpdf run decodes, besides object streams and XMP (always). */
export interface QpdfDecodes {
  /**
   * How the run writes streams: `nothing` (it writes no file: --show-npages),
   * `compressed` (--compress-streams=y, qpdf's default), `recompressed`
   * (and --recompress-flate).
   */
  readonly writes: 'nothing' | 'compressed' | 'recompressed';
  /** The run removes unreferenced resources, so parses page contents (see above). */
  readonly contents: boolean;
}

const GENERALIZED = new Set(['FlateDecode', 'Fl', 'LZWDecode', 'LZW', 'ASCII85Decode', 'A85', 'ASCIIHexDecode', 'AHx']);
/** XMP is decoded at qpdf's `all` level: RunLength too (DCT is never an XMP stream's). */
export const FOR_XMP = new Set([...GENERALIZED, 'RunLengthDecode', 'RL']);
/** Stream dictionaries that are not page contents: image samples, font programs, ICC profiles, embedded files. */
const NOT_CONTENT_SUBTYPES = new Set(['Image', 'Type1C', 'CIDFontType0C', 'OpenType']);

/** Zlib's header (RFC 1950 2.2): deflate, a window of at most 32 KiB, and a check that makes it a multiple of 31. */
function looksLikeZlib(data: Uint8Array): boolean {
  const cmf = data[0];
  const flg = data[1];
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && (cmf * 256 + flg) % 31 === 0;
}

/** Input bytes inflated to see whether a layer's output is zlib again: a Flate block's header and the first codes fit in far less. */
const PROBE_BYTES = 1024;

/** As many Flate layers as the data's zlib headers show (at most 4), or undefined when it does not start as zlib. */
export function flateLayers(data: Uint8Array): FilterStep[] | undefined {
  const layers: FilterStep[] = [];
  let probe = data;
  while (layers.length < 4 && looksLikeZlib(probe)) {
    layers.push({ name: 'FlateDecode' });
    try {
      probe = inflateSync(probe.subarray(0, PROBE_BYTES), { finishFlush: constants.Z_SYNC_FLUSH });
    } catch {
      break;
    }
  }
  return layers.length > 0 ? layers : undefined;
}

/**
 * Charges what a qpdf run will decode of `pdf` to the task's budget; throws
 * DecodedBytesExceeded (the task then answers 422 pdf-limits-exceeded,
 * naming `field`) past the cap. Run it once per file and task, for the
 * widest run the task makes of it.
 */
export async function chargeQpdfDecoding(pdf: Uint8Array, decodes: QpdfDecodes, field: string): Promise<void> {
  const budget = currentDecodedBudget();
  const decoded: Array<{ stream: RawStream; chain: FilterStep[] }> = [];
  let worst = 0;
  for (const stream of rawStreams(pdf)) {
    const chain = decodedChain(stream, decodes);
    if (chain === undefined) continue;
    decoded.push({ stream, chain });
    worst += stream.decoded ?? (stream.lengthKnown ? worstCase(stream.data().byteLength, chain) : Infinity);
  }
  // What qpdf can decode at most fits in what the budget has left: nothing
  // to decode ahead. So for most files at the default cap (the 50-page
  // letter's worst case: 22 KB linearized, 101 MB with optimize_for_web,
  // whose every content stream would otherwise be inflated ahead, 4% of the
  // request's CPU); a stream of unknown length has no worst case.
  if (budget.reserve(worst)) return;
  for (const { stream, chain } of decoded) {
    // A cross-reference stream was inflated to find the objects: its size is known.
    if (stream.decoded !== undefined) budget.charge(stream.decoded, field);
    else await chargeFilterChain(stream.data(), chain, field, budget);
  }
}

/**
 * The most `encoded` bytes can decode to through `chain`: Flate 1032 times
 * (a length-258 match in 2 bits, RFC 1951 3.2.5), LZW about 3,641 times
 * (a 9-bit code at least, for up to 4,096 bytes), RunLength 64 times (128
 * copies from 2 bytes), ASCII85 4 times (`z`), ASCIIHex half; plus a
 * little for what a stream's end adds.
 */
export function worstCase(encoded: number, chain: readonly FilterStep[]): number {
  let bytes = encoded;
  for (const { name } of chain) bytes = (WORST_RATIO[name] ?? Infinity) * bytes + 4096;
  return bytes;
}

const WORST_RATIO: Readonly<Record<string, number>> = {
  FlateDecode: 1032,
  Fl: 1032,
  LZWDecode: Math.ceil((4096 * 8) / 9),
  LZW: Math.ceil((4096 * 8) / 9),
  RunLengthDecode: 64,
  RL: 64,
  ASCII85Decode: 4,
  A85: 4,
  ASCIIHexDecode: 0.5,
  AHx: 0.5,
};

/** The filters qpdf will undo on this stream in this run, or undefined when it copies the stream as it is. */
export function decodedChain(stream: RawStream, decodes: QpdfDecodes): FilterStep[] | undefined {
  const { dict } = stream;
  const filters = dict === undefined ? undefined : filtersOf(dict);
  // No dictionary, or /Filter written indirectly (qpdf resolves it): the data says whether it is Flate.
  if (dict === undefined || filters === undefined) return flateLayers(stream.data());
  if (filters.length === 0) return undefined;
  const type = dict.name('Type');
  if (type === 'Metadata' && dict.name('Subtype') === 'XML') return filters.every((f) => FOR_XMP.has(f.name)) ? filters : undefined;
  if (!filters.every((f) => GENERALIZED.has(f.name))) return undefined;
  if (type === 'ObjStm' || type === 'XRef' || decodes.writes === 'recompressed') return filters;
  if (decodes.contents && mayBeContent(dict)) return filters;
  if (decodes.writes === 'nothing') return undefined;
  const single = dict.get('Filter') instanceof PdfName && (filters[0]?.name === 'FlateDecode' || filters[0]?.name === 'Fl');
  return single ? undefined : filters;
}

function mayBeContent(dict: PdfDict): boolean {
  const subtype = dict.name('Subtype');
  if (subtype !== undefined && NOT_CONTENT_SUBTYPES.has(subtype)) return false;
  if (dict.name('Type') === 'EmbeddedFile') return false;
  // Font programs (/Length1-3: Type 1 and TrueType) and ICC profiles (/N).
  return !dict.has('Length1') && !dict.has('Length2') && !dict.has('Length3') && !dict.has('N');
}
