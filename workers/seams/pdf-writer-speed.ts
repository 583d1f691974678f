// Costs of pdf-lib's writer that grow with a document's objects, cut
// without changing a byte it writes (part of the PDF seam; pdf.ts and
// pdf-structure.ts load it with pdf-lib, in every worker thread):
//
// - PDFCrossRefStream.appendEntry kept its entries sorted by searching the
//   whole list for the first larger object number before every append
//   (Array.findIndex), so a save was quadratic in the object count. The
//   writer appends in increasing object numbers (it enumerates the
//   context's objects in order, then adds the object streams and the
//   cross-reference stream it numbers after them), so an entry above the
//   last one is pushed at once; anything else takes pdf-lib's own path.
//   A 10-page tagged invoice (~1,400 objects) spent ~2 ms a render there.
// - PDFCrossRefStream.getUnencodedContents built three byte arrays and
//   three reversed copies per entry to write each entry's fields
//   big-endian: 780 KB of garbage a save of that invoice (the allocation
//   sampler, counting collected objects), for ~8 KB of output. The fields
//   are written straight into the output here, and the widths of /W are
//   found from the entries without pdf-lib's tuple per entry and binary
//   string per number.
// - PDFName.of runs a regular expression over the name (decoding #xx
//   escapes) before looking it up in its pool, on every call: the writer
//   calls PDFName.of('Type') for every dictionary it packs, the parser for
//   every name it reads. A name without '#' decodes to itself, so its
//   instance is remembered by the name as given, in a bounded map (names of
//   untrusted files must not grow it without end; pdf-lib's own pool does).
//
// And one setting its save() does not expose: objects go 200 to an object
// stream, not 50 (qpdf packs 100). Each stream is a deflate of its own with
// a dictionary and offsets: a 10-page tagged invoice's 1,250 small objects
// made 25 streams (7 now), 38.8 KB against 35.8 KB, and its render cost
// 0.85 (0.76-1.09) of the CPU with 50 in interleaved processes. 1,000 a
// stream gained nothing more. A file with fewer than 50 objects (a
// one-page letter) is written as before.
import { PDFCrossRefStream, PDFName, PDFStreamWriter } from '@cantoo/pdf-lib';

interface Entry {
  readonly ref: { readonly objectNumber: number };
}

const crossRef = PDFCrossRefStream.prototype as unknown as { appendEntry(entry: Entry): void; entries: Entry[] };
const appendEntry = crossRef.appendEntry;
crossRef.appendEntry = function (this: typeof crossRef, entry: Entry): void {
  const last = this.entries[this.entries.length - 1];
  if (last === undefined || last.ref.objectNumber < entry.ref.objectNumber) this.entries.push(entry);
  else appendEntry.call(this, entry);
};

/** pdf-lib's cross-reference entry kinds (PDFCrossRefStream's EntryType). */
const DELETED = 0;
const COMPRESSED = 2;

interface CrossRefEntry extends Entry {
  readonly type: number;
  readonly ref: { readonly objectNumber: number; readonly generationNumber: number };
  readonly offset?: number;
  readonly nextFreeObjectNumber?: number;
  readonly objectStreamRef?: { readonly objectNumber: number };
  readonly index?: number;
}

const crossRefContents = PDFCrossRefStream.prototype as unknown as {
  getUnencodedContents(): Uint8Array;
  entries: CrossRefEntry[];
  maxByteWidthsCache: { access(): [number, number, number] };
};
/** Each entry's three fields (ISO 32000-1 §7.5.8.3, Table 18) big-endian in the widths /W gives, as pdf-lib writes them. */
crossRefContents.getUnencodedContents = function (this: typeof crossRefContents): Uint8Array {
  const [typeWidth, secondWidth, thirdWidth] = this.maxByteWidthsCache.access();
  const width = typeWidth + secondWidth + thirdWidth;
  const entries = this.entries;
  const buffer = new Uint8Array(width * entries.length);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as CrossRefEntry;
    const second = entry.type === DELETED ? entry.nextFreeObjectNumber : entry.type === COMPRESSED ? entry.objectStreamRef?.objectNumber : entry.offset;
    const third = entry.type === COMPRESSED ? entry.index : entry.ref.generationNumber;
    const at = i * width;
    writeBigEndian(buffer, at, typeWidth, entry.type);
    writeBigEndian(buffer, at + typeWidth, secondWidth, second ?? 0);
    writeBigEndian(buffer, at + typeWidth + secondWidth, thirdWidth, third ?? 0);
  }
  return buffer;
};

/**
 * The widths /W gives (the bytes of each field's largest value, at least
 * one), as pdf-lib computes them, from the entries themselves: pdf-lib
 * builds a tuple array of all entries first and sizes every number through
 * its binary string (`n.toString(2).length / 8`): ~0.4 ms a save of a
 * 10-page tagged invoice's 1,400 entries (--cpu-prof, 350 renders:
 * sizeInBytes 87 ms, computeEntryTuples 35, computeMaxEntryByteWidths 23).
 * Set on every cross-reference stream the writer creates.
 */
function maxByteWidths(entries: readonly CrossRefEntry[]): [number, number, number] {
  let second = 0;
  let third = 0;
  for (const entry of entries) {
    const secondValue = (entry.type === DELETED ? entry.nextFreeObjectNumber : entry.type === COMPRESSED ? entry.objectStreamRef?.objectNumber : entry.offset) ?? 0;
    const thirdValue = (entry.type === COMPRESSED ? entry.index : entry.ref.generationNumber) ?? 0;
    if (secondValue > second) second = secondValue;
    if (thirdValue > third) third = thirdValue;
  }
  return entries.length === 0 ? [0, 0, 0] : [1, byteWidth(second), byteWidth(third)];
}

/** pdf-lib's sizeInBytes: the bytes of `value`, one for 0. */
function byteWidth(value: number): number {
  let bytes = 1;
  for (let rest = value; rest >= 256; rest = Math.floor(rest / 256)) bytes++;
  return bytes;
}

const create = PDFCrossRefStream.create;
PDFCrossRefStream.create = (dict, encode) => {
  const stream = create(dict, encode);
  const internals = stream as unknown as { entries: CrossRefEntry[]; maxByteWidthsCache: { populate: () => [number, number, number] } };
  internals.maxByteWidthsCache.populate = () => maxByteWidths(internals.entries);
  return stream;
};

function writeBigEndian(buffer: Uint8Array, at: number, width: number, value: number): void {
  let rest = value;
  for (let i = width - 1; i >= 0; i--) {
    buffer[at + i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
}

/** The names of the PDF syntax and of the documents we write are a few hundred; parsed files may bring any. */
const MAX_REMEMBERED_NAMES = 4096;
const remembered = new Map<string, PDFName>();
const nameOf = PDFName.of;
PDFName.of = (name: string): PDFName => {
  let instance = remembered.get(name);
  if (instance === undefined) {
    instance = nameOf(name);
    if (remembered.size < MAX_REMEMBERED_NAMES && !name.includes('#')) remembered.set(name, instance);
  }
  return instance;
};

const OBJECTS_PER_STREAM = 200;
const forContext = PDFStreamWriter.forContext;
PDFStreamWriter.forContext = (context, objectsPerTick, encodeStreams = true, objectsPerStream = OBJECTS_PER_STREAM) => forContext(context, objectsPerTick, encodeStreams, objectsPerStream);
