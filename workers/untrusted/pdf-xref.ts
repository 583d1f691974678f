// A PDF's cross-reference sections (ISO 32000-1 7.5.4, 7.5.8), read from
// its raw bytes: one reader for every task that must know where a file's
// objects are without a PDF library. The forensic walk compares the
// sections of successive revisions (analysis/forensic/revisions.ts); the
// count in front of qpdf reads each object where qpdf will, at the offset
// its newest section gives (pdf-streams.ts). Regular expressions over
// bounded slices: a hostile /Size or /W never allocates without bound.
import { constants, inflateSync } from 'node:zlib';
import { undoPngPredictors } from './png-predictors.js';

export interface XrefEntry {
  readonly num: number;
  readonly gen: number;
  /** 0 free, 1 at a byte offset, 2 inside an object stream. */
  readonly type: 0 | 1 | 2;
  /** Type 1: the object's byte offset; type 2: the object stream's number. */
  readonly field2: number;
  /** Read from a hybrid file's /XRefStm rather than its table (7.5.8.4). */
  readonly hybrid?: boolean;
}

export interface XrefSection {
  readonly entries: readonly XrefEntry[];
  readonly kind: 'table' | 'stream';
  /** The trailer (or the cross-reference stream's dictionary) has /Encrypt. */
  readonly encrypted: boolean;
  /** The trailer's /Prev: the section before this one. */
  readonly prev: number | undefined;
  /** A cross-reference stream: the bytes its Flate filter decoded to (pdf-streams.ts charges them without decoding again). */
  readonly decoded?: number;
  /** Bytes read, for callers that bound their total. */
  readonly scanned: number;
}

/** Entries read from one section at most: a hostile /Size or /W must not allocate without bound. */
export const MAX_ENTRIES = 2_000_000;

/** The offset `startxref` gives in [from, eof), the last one there. */
export function startxrefBefore(buffer: Buffer, from: number, eof: number): number | undefined {
  const at = buffer.lastIndexOf('startxref', eof, 'latin1');
  if (at < from) return undefined;
  const match = /^startxref\s+(\d{1,12})\s*$/.exec(buffer.toString('latin1', at, eof));
  return match === null ? undefined : Number(match[1]);
}

/** The section at `offset` (a table and its trailer, or a cross-reference stream); undefined when neither is there. */
export function readXrefSection(buffer: Buffer, offset: number): XrefSection | undefined {
  if (offset >= buffer.length) return undefined;
  const head = buffer.toString('latin1', offset, Math.min(buffer.length, offset + 64));
  if (/^\s*xref/.test(head)) {
    const trailerAt = buffer.indexOf('trailer', offset, 'latin1');
    const trailer = trailerAt < 0 ? '' : (buffer.toString('latin1', trailerAt, Math.min(buffer.length, trailerAt + 4096)).split('startxref')[0] ?? '');
    const scanned = (trailerAt < 0 ? buffer.length : trailerAt) - offset;
    return { entries: readTable(buffer, offset), kind: 'table', encrypted: /\/Encrypt[\s/<\d]/.test(trailer), prev: prevOf(trailer), scanned };
  }
  if (/^\s*\d+\s+\d+\s+obj/.test(head)) {
    const stream = readStream(buffer, offset);
    if (stream === undefined) return undefined;
    return { entries: stream.entries, kind: 'stream', encrypted: /\/Encrypt[\s/<\d]/.test(stream.dict), prev: prevOf(stream.dict), scanned: stream.entries.length * 8 + stream.dict.length, decoded: stream.decoded };
  }
  return undefined;
}

function prevOf(dictionary: string): number | undefined {
  const prev = /\/Prev\s+(\d{1,12})(?!\s+\d+\s+R)/.exec(dictionary)?.[1];
  return prev === undefined ? undefined : Number(prev);
}

/** A classic table (7.5.4): subsections `first count`, then 20-byte entries `oooooooooo ggggg n`; and a hybrid file's /XRefStm (7.5.8.4). */
function readTable(buffer: Buffer, offset: number): XrefEntry[] {
  const trailerAt = buffer.indexOf('trailer', offset, 'latin1');
  const end = trailerAt < 0 ? buffer.length : trailerAt;
  const lines = buffer.toString('latin1', offset, end).split(/\r\n|\r|\n/);
  const entries: XrefEntry[] = [];
  let next = 0;
  for (const line of lines) {
    const subsection = /^\s*(\d+)\s+(\d+)\s*$/.exec(line);
    if (subsection !== null) {
      next = Number(subsection[1]);
      continue;
    }
    const entry = /^\s*(\d{1,10})\s+(\d{1,5})\s+([nf])/.exec(line);
    if (entry === null) continue;
    if (entries.length >= MAX_ENTRIES) break;
    entries.push({ num: next++, gen: Number(entry[2]), type: entry[3] === 'n' ? 1 : 0, field2: Number(entry[1]) });
  }
  if (trailerAt >= 0) {
    const trailer = buffer.toString('latin1', trailerAt, Math.min(buffer.length, trailerAt + 4096));
    const hybrid = /\/XRefStm\s+(\d{1,12})/.exec(trailer.split('startxref')[0] ?? '');
    if (hybrid !== null) entries.push(...(readStream(buffer, Number(hybrid[1]))?.entries ?? []).map((entry) => ({ ...entry, hybrid: true })));
  }
  return entries;
}

/** A cross-reference stream (7.5.8): /W field widths, /Index subsections, Flate with an optional PNG predictor. */
function readStream(buffer: Buffer, offset: number): { entries: XrefEntry[]; dict: string; decoded: number } | undefined {
  const streamAt = buffer.indexOf('stream', offset, 'latin1');
  if (streamAt < 0 || streamAt - offset > 65_536) return undefined;
  const dict = buffer.toString('latin1', offset, streamAt);
  if (!/\/Type\s*\/XRef/.test(dict)) return undefined;
  const widths = /\/W\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(dict);
  if (widths === null) return undefined;
  const w = [Number(widths[1]), Number(widths[2]), Number(widths[3])] as const;
  const rowLength = w[0] + w[1] + w[2];
  if (rowLength === 0 || w.some((width) => width > 8)) return undefined;
  const size = Number(/\/Size\s+(\d+)/.exec(dict)?.[1] ?? 0);
  const indexNumbers = /\/Index\s*\[([\d\s]*)\]/.exec(dict)?.[1]?.trim().split(/\s+/).map(Number) ?? [0, size];

  let dataStart = streamAt + 6;
  if (buffer[dataStart] === 0x0d) dataStart++;
  if (buffer[dataStart] === 0x0a) dataStart++;
  const directLength = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
  let dataEnd = directLength === null ? -1 : dataStart + Number(directLength[1]);
  if (dataEnd < 0 || dataEnd > buffer.length || buffer.toString('latin1', dataEnd, dataEnd + 12).trim().startsWith('endstream') === false) {
    dataEnd = buffer.indexOf('endstream', dataStart, 'latin1');
    if (dataEnd < 0) return undefined;
  }
  let data: Uint8Array = buffer.subarray(dataStart, dataEnd);
  if (/\/Filter\s*(\[\s*)?\/FlateDecode/.test(dict)) {
    try {
      data = inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: MAX_ENTRIES * rowLength });
    } catch {
      return undefined;
    }
  } else if (/\/Filter/.test(dict)) return undefined;
  const decoded = data.length;
  const predictor = Number(/\/Predictor\s+(\d+)/.exec(dict)?.[1] ?? 1);
  if (predictor >= 10) {
    const unpredicted = undoPngPredictors(data, Number(/\/Columns\s+(\d+)/.exec(dict)?.[1] ?? 1), 1);
    if (unpredicted === undefined) return undefined;
    data = unpredicted;
  }

  const entries: XrefEntry[] = [];
  let row = 0;
  for (let i = 0; i + 1 < indexNumbers.length; i += 2) {
    const first = indexNumbers[i] as number;
    const count = indexNumbers[i + 1] as number;
    for (let k = 0; k < count && (row + 1) * rowLength <= data.length && entries.length < MAX_ENTRIES; k++, row++) {
      const at = row * rowLength;
      // A zero-width type field means type 1 (7.5.8.2, Table 17).
      const type = w[0] === 0 ? 1 : field(data, at, w[0]);
      const second = field(data, at + w[0], w[1]);
      const third = field(data, at + w[0] + w[1], w[2]);
      if (type === 0 || type === 1 || type === 2) entries.push({ num: first + k, gen: type === 2 ? 0 : third, type, field2: second });
    }
  }
  return { entries, dict, decoded };
}

function field(data: Uint8Array, at: number, width: number): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + (data[at + i] as number);
  return value;
}
