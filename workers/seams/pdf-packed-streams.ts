// Object streams (ISO 32000-1 §7.5.7) we pack ourselves, for objects made in
// bulk as text (part of the PDF seam; pdf-tagged.ts packs a tagged file's
// structure with it). pdf-lib packs each object it writes one by one: it
// sizes it, wraps it in a PDFRef, a chunk entry, an offsets string and a
// cross-reference entry, then copies it byte by byte into the stream it
// deflates. For a 10-page tagged invoice's ~1,250 structure objects that
// machinery was ~1.5 ms a render (a --cpu-prof of 400 renders: the
// object-stream writing ~600 ms, SerializedObject.copyBytesInto 82, part of
// GC's 650), more than the elements' own text. Here the stream's text (the
// "number offset" pairs, then the objects, written as bytes by the caller:
// pdf-syntax-bytes.ts) is deflated once and handed to pdf-lib's writer as
// one finished stream; the members are not objects of the document's
// context at all.
//
// The writer must then list the members in the cross-reference stream as
// compressed entries (type 2: the stream's number and the index in it,
// §7.5.8.3), which pdf-lib's writer cannot know about: PDFStreamWriter's
// computeBufferSize is wrapped to hand them to the cross-reference stream it
// creates, which takes them in object-number order before pdf-lib sizes and
// deflates it. Only object-stream saves can hold packed streams (PDF/A-1
// forbids object streams): pdf-lib's plain PDFWriter throws on a document
// that has them, a bug in the caller.
import { deflateSync } from 'node:zlib';
import { PDFCrossRefStream, PDFStream, PDFStreamWriter, PDFWriter, type PDFContext, type PDFDict, type PDFRef } from '@cantoo/pdf-lib';
import { SyntaxBytes } from './pdf-syntax-bytes.js';

/**
 * A finished, deflated object stream of the objects numbered `first` to
 * `first + count - 1`. A PDFStream, not a PDFRawStream: pdf-lib's writer
 * drops every PDFRawStream of /Type /ObjStm on a full save (it takes them
 * for the containers of a parsed file, whose members it has unpacked).
 */
export class PackedObjectStream extends PDFStream {
  constructor(
    dict: PDFDict,
    private readonly contents: Uint8Array,
    readonly first: number,
    readonly count: number,
  ) {
    super(dict);
  }

  override clone(context?: PDFContext): PackedObjectStream {
    return new PackedObjectStream(this.dict.clone(context), this.contents, this.first, this.count);
  }

  override getContents(): Uint8Array {
    return this.contents;
  }

  override getContentsSize(): number {
    return this.contents.length;
  }

  override getContentsString(): string {
    return Buffer.from(this.contents.buffer, this.contents.byteOffset, this.contents.byteLength).toString('latin1');
  }
}

/**
 * Objects per stream, as pdf-lib's own are written (pdf-writer-speed.ts:
 * 200, where a 10-page tagged invoice's save measured best; qpdf packs 100):
 * a reader inflates a whole stream to read one of its objects.
 */
const OBJECTS_PER_STREAM = 200;

/**
 * Zlib level of the packed streams: short dictionaries much alike, where
 * the levels above 1 find little more. A 10-page tagged invoice's 70 KB of
 * structure (400 deflates each, alternated): level 1 445 µs, 15,220
 * bytes; level 3 558 µs, 15,173 bytes; level 6 1,021 µs, 14,190 bytes.
 * Z_FILTERED was level 3's size and time; Z_RLE and Huffman only twice
 * the size for no less time.
 */
const LEVEL = 1;

/** The packed streams of a context: only their saves list members. */
const packed = new WeakMap<PDFContext, Array<[PDFRef, PackedObjectStream]>>();

/**
 * Writes the objects in `objects` (PDF syntax; object `i` is the bytes from
 * `ends[i - 1]`, or 0, to `ends[i]`) as the objects numbered `first`,
 * `first + 1`, ... of `context`, in packed object streams numbered after
 * them. Every number up to the last stream's is taken.
 */
export function packObjects(context: PDFContext, first: number, objects: SyntaxBytes): void {
  const ends = objects.ends;
  if (first <= context.largestObjectNumber) throw new Error(`packed objects from ${first} would reuse numbers up to ${context.largestObjectNumber}`);
  context.largestObjectNumber = first + ends.length - 1;
  let streams = packed.get(context);
  if (streams === undefined) packed.set(context, (streams = []));
  const bytes = objects.bytes;
  for (let start = 0; start < ends.length; start += OBJECTS_PER_STREAM) {
    const end = Math.min(start + OBJECTS_PER_STREAM, ends.length);
    const from = start === 0 ? 0 : (ends[start - 1] as number);
    // The header is the pairs "number offset", offsets from /First, where the objects begin.
    const header = new SyntaxBytes();
    for (let i = start; i < end; i++) header.int(first + i).ascii(' ').int(i === start ? 0 : (ends[i - 1] as number) - from).ascii(' ');
    header.ascii('\n');
    const text = Buffer.concat([header.bytes, bytes.subarray(from, ends[end - 1])]);
    const dict = context.obj({ Type: 'ObjStm', N: end - start, First: header.length, Filter: 'FlateDecode' });
    const stream = new PackedObjectStream(dict, deflateSync(text, { level: LEVEL }), first + start, end - start);
    const ref = context.nextRef();
    context.assign(ref, stream);
    streams.push([ref, stream]);
  }
}

// --- the writer ------------------------------------------------------------

/**
 * A member's cross-reference entry, as pdf-lib's writer and
 * pdf-writer-speed.ts read one (PDFCrossRefStream's Entry: type 2, the
 * stream and the index in it, and `ref` for the object's number). The
 * entry is its own `ref`: one object per member, not an entry and a ref
 * (a 10-page tagged invoice has ~1,250 members, and the entries live
 * until the save's end).
 */
class CompressedEntry {
  readonly type = 2;
  readonly generationNumber = 0;

  constructor(
    readonly objectNumber: number,
    readonly objectStreamRef: PDFRef,
    readonly index: number,
  ) {}

  get ref(): this {
    return this;
  }
}

interface WriterInternals {
  readonly context: PDFContext;
  computeBufferSize(incremental: boolean): Promise<unknown>;
}

/** The members of the save being computed, for the cross-reference stream it creates (see below). */
let pendingMembers: CompressedEntry[] | undefined;

const streamWriter = PDFStreamWriter.prototype as unknown as WriterInternals;
const computeBufferSize = streamWriter.computeBufferSize;
streamWriter.computeBufferSize = function (this: WriterInternals, incremental: boolean): Promise<unknown> {
  const streams = packed.get(this.context);
  if (streams === undefined) return computeBufferSize.call(this, incremental);
  // pdf-lib encrypts a stream through its contents, which a packed stream does not let it replace; we never encrypt a render.
  if ((this.context as unknown as { security?: unknown }).security !== undefined) throw new Error('packed object streams in an encrypted document');
  const members: CompressedEntry[] = [];
  for (const [ref, stream] of streams) {
    // Plain numbers, not PDFRefs (pdf-lib interns each in a pool under a string key): the entries are only read for their numbers.
    for (let index = 0; index < stream.count; index++) members.push(new CompressedEntry(stream.first + index, ref, index));
  }
  // pdf-lib's computeBufferSize creates its cross-reference stream before its first await, so the
  // stream takes the members synchronously, and pdf-lib sizes and deflates it once, with them.
  pendingMembers = members;
  const computed = computeBufferSize.call(this, incremental);
  if (pendingMembers !== undefined) {
    pendingMembers = undefined;
    throw new Error('pdf-lib no longer creates its cross-reference stream as it starts a save');
  }
  return computed;
};

/**
 * The writer appends entries in increasing object numbers (its objects in
 * order, then the object streams and the cross-reference stream it numbers
 * after them). The members are contiguous, and the packed streams are
 * numbered after them, so the members go in as one run, in order, as the
 * first entry numbered past them arrives: every append stays an append
 * (pdf-writer-speed.ts's fast path).
 */
const create = PDFCrossRefStream.create;
PDFCrossRefStream.create = (dict, encode) => {
  const stream = create(dict, encode);
  let members = pendingMembers;
  pendingMembers = undefined;
  const first = members?.[0];
  if (members === undefined || first === undefined) return stream;
  const internals = stream as unknown as { appendEntry(entry: { readonly ref: { readonly objectNumber: number } }): void };
  const append = internals.appendEntry;
  internals.appendEntry = function (this: typeof internals, entry): void {
    if (members !== undefined && entry.ref.objectNumber > first.ref.objectNumber) {
      for (const member of members) append.call(this, member);
      members = undefined;
    }
    append.call(this, entry);
  };
  return stream;
};

const plainWriter = PDFWriter.prototype as unknown as WriterInternals;
const computePlain = plainWriter.computeBufferSize;
plainWriter.computeBufferSize = function (this: WriterInternals, incremental: boolean): Promise<unknown> {
  // PDFStreamWriter overrides computeBufferSize, so only pdf-lib's cross-reference table saves reach this.
  if (packed.has(this.context)) throw new Error('a document with packed object streams saved without object streams');
  return computePlain.call(this, incremental);
};
