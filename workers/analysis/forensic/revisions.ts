// A PDF's revisions, read from its raw bytes the way a reader walks them
// backwards (ISO 32000-1 7.5.5-7.5.6): every incremental update appends its
// objects, a cross-reference section (a table or a stream, 7.5.8) and a
// trailer ending in `startxref` and `%%EOF`. Each section lists exactly the
// objects that revision wrote, so comparing it with the sections before it
// says what the update added, rewrote or freed. pdf-lib only ever shows the
// final state, hence this separate walk; pdfid counts the `%%EOF` markers,
// this says what each update did.
import { inflateSync, constants } from 'node:zlib';
import { undoPngPredictors } from '../../untrusted/png-predictors.js';

export interface RevisionObject {
  readonly num: number;
  readonly gen: number;
  /** Stored inside an object stream (a type 2 entry of a cross-reference stream). */
  readonly compressed: boolean;
}

export interface Revision {
  /** 1-based, oldest first. */
  readonly number: number;
  /** Byte offsets: [start, end), end just past its `%%EOF` line. */
  readonly start: number;
  readonly end: number;
  readonly xref: 'table' | 'stream' | 'unreadable';
  /** Objects the section lists as in use. */
  readonly objects: readonly RevisionObject[];
  readonly added: readonly number[];
  readonly changed: readonly number[];
  /** Objects the section marks free that an earlier revision had in use. */
  readonly deleted: readonly number[];
}

export interface RevisionScan {
  readonly revisions: readonly Revision[];
  /** Bytes after the last `%%EOF` line: not part of any revision (appended data, a polyglot). */
  readonly trailingBytes: number;
  /** Numbers of every object any section places inside an object stream. */
  readonly compressedObjects: ReadonlySet<number>;
  /** The newest section's trailer (or cross-reference stream dictionary) has /Encrypt. */
  readonly encrypted: boolean;
}

/** Entries read from one section at most: a hostile /Size or /W must not allocate without bound. */
const MAX_ENTRIES = 2_000_000;
/** Revisions read at most (a file with more is reported up to here). */
const MAX_REVISIONS = 10_000;
/** Bytes all section reads may scan together: a few times the file, plus room for small files. */
const READ_BUDGET_FACTOR = 4;
const READ_BUDGET_BASE = 1 << 20;

interface Entry {
  readonly num: number;
  readonly gen: number;
  readonly type: 0 | 1 | 2;
}

export function scanRevisions(bytes: Uint8Array, linearized: boolean): RevisionScan {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sections: { start: number; end: number; entries: Entry[] | undefined; kind: Revision['xref'] }[] = [];
  let encrypted = false;
  let start = 0;
  // Sections read once per offset, and within a budget of bytes: a hostile
  // file of many %%EOF markers all pointing at one huge table must not cost
  // the table's size once per marker.
  const sectionsRead = new Map<number, ReturnType<typeof readSection>>();
  let budget = READ_BUDGET_FACTOR * bytes.byteLength + READ_BUDGET_BASE;
  const sectionAt = (offset: number) => {
    if (!sectionsRead.has(offset)) {
      const section = budget > 0 ? readSection(buffer, offset) : undefined;
      budget -= section?.scanned ?? 0;
      sectionsRead.set(offset, section);
    }
    return sectionsRead.get(offset);
  };
  for (let at = buffer.indexOf('%%EOF', 0, 'latin1'); at >= 0 && sections.length < MAX_REVISIONS; at = buffer.indexOf('%%EOF', at + 5, 'latin1')) {
    let end = at + 5;
    if (buffer[end] === 0x0d) end++;
    if (buffer[end] === 0x0a) end++;
    const offset = startxrefBefore(buffer, start, at);
    const read = offset === undefined ? undefined : sectionAt(offset);
    sections.push({ start, end, entries: read?.entries, kind: read?.kind ?? 'unreadable' });
    if (read !== undefined) encrypted = read.encrypted;
    start = end;
  }
  // A linearized file's first-page section ends in its own %%EOF, yet it and
  // the main section are one revision (Annex F.3.4): merge the two.
  if (linearized && sections.length >= 2) {
    const [first, second] = sections as [(typeof sections)[0], (typeof sections)[0]];
    sections.splice(0, 2, { start: 0, end: second.end, entries: [...(first.entries ?? []), ...(second.entries ?? [])], kind: first.kind === 'unreadable' ? second.kind : first.kind });
  }
  const inUse = new Set<number>();
  const compressedObjects = new Set<number>();
  const revisions = sections.map((section, index): Revision => {
    const objects: RevisionObject[] = [];
    const added: number[] = [];
    const changed: number[] = [];
    const deleted: number[] = [];
    const seen = new Set<number>();
    for (const entry of section.entries ?? []) {
      if (seen.has(entry.num) || entry.num === 0) continue;
      seen.add(entry.num);
      if (entry.type === 0) {
        if (inUse.delete(entry.num)) deleted.push(entry.num);
        continue;
      }
      objects.push({ num: entry.num, gen: entry.gen, compressed: entry.type === 2 });
      if (entry.type === 2) compressedObjects.add(entry.num);
      (inUse.has(entry.num) ? changed : added).push(entry.num);
    }
    for (const num of added) inUse.add(num);
    return { number: index + 1, start: section.start, end: section.end, xref: section.kind, objects, added, changed, deleted };
  });
  return { revisions, trailingBytes: bytes.byteLength - start, compressedObjects, encrypted };
}

function startxrefBefore(buffer: Buffer, from: number, eof: number): number | undefined {
  const at = buffer.lastIndexOf('startxref', eof, 'latin1');
  if (at < from) return undefined;
  const match = /^startxref\s+(\d{1,12})\s*$/.exec(buffer.toString('latin1', at, eof));
  return match === null ? undefined : Number(match[1]);
}

function readSection(buffer: Buffer, offset: number): { entries: Entry[]; kind: 'table' | 'stream'; encrypted: boolean; scanned: number } | undefined {
  if (offset >= buffer.length) return undefined;
  const head = buffer.toString('latin1', offset, Math.min(buffer.length, offset + 64));
  if (/^\s*xref/.test(head)) {
    const trailerAt = buffer.indexOf('trailer', offset, 'latin1');
    const trailer = trailerAt < 0 ? '' : (buffer.toString('latin1', trailerAt, Math.min(buffer.length, trailerAt + 4096)).split('startxref')[0] ?? '');
    const scanned = (trailerAt < 0 ? buffer.length : trailerAt) - offset;
    return { entries: readTable(buffer, offset), kind: 'table', encrypted: /\/Encrypt[\s/<\d]/.test(trailer), scanned };
  }
  if (/^\s*\d+\s+\d+\s+obj/.test(head)) {
    const entries = readStream(buffer, offset);
    const streamAt = buffer.indexOf('stream', offset, 'latin1');
    const dict = streamAt < 0 ? '' : buffer.toString('latin1', offset, streamAt);
    const scanned = (entries?.length ?? 0) * 8 + dict.length;
    return entries === undefined ? undefined : { entries, kind: 'stream', encrypted: /\/Encrypt[\s/<\d]/.test(dict), scanned };
  }
  return undefined;
}

/** A classic table (7.5.4): subsections `first count`, then 20-byte entries `oooooooooo ggggg n`; and a hybrid file's /XRefStm (7.5.8.4). */
function readTable(buffer: Buffer, offset: number): Entry[] {
  const trailerAt = buffer.indexOf('trailer', offset, 'latin1');
  const end = trailerAt < 0 ? buffer.length : trailerAt;
  const lines = buffer.toString('latin1', offset, end).split(/\r\n|\r|\n/);
  const entries: Entry[] = [];
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
    entries.push({ num: next++, gen: Number(entry[2]), type: entry[3] === 'n' ? 1 : 0 });
  }
  if (trailerAt >= 0) {
    const trailer = buffer.toString('latin1', trailerAt, Math.min(buffer.length, trailerAt + 4096));
    const hybrid = /\/XRefStm\s+(\d{1,12})/.exec(trailer.split('startxref')[0] ?? '');
    if (hybrid !== null) entries.push(...(readStream(buffer, Number(hybrid[1])) ?? []).filter((entry) => entry.type === 2));
  }
  return entries;
}

/** A cross-reference stream (7.5.8): /W field widths, /Index subsections, Flate with an optional PNG predictor. */
function readStream(buffer: Buffer, offset: number): Entry[] | undefined {
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
  const predictor = Number(/\/Predictor\s+(\d+)/.exec(dict)?.[1] ?? 1);
  if (predictor >= 10) {
    const unpredicted = undoPngPredictors(data, Number(/\/Columns\s+(\d+)/.exec(dict)?.[1] ?? 1), 1);
    if (unpredicted === undefined) return undefined;
    data = unpredicted;
  }

  const entries: Entry[] = [];
  let row = 0;
  for (let i = 0; i + 1 < indexNumbers.length; i += 2) {
    const first = indexNumbers[i] as number;
    const count = indexNumbers[i + 1] as number;
    for (let k = 0; k < count && (row + 1) * rowLength <= data.length && entries.length < MAX_ENTRIES; k++, row++) {
      const at = row * rowLength;
      // A zero-width type field means type 1 (7.5.8.2, Table 17).
      const type = w[0] === 0 ? 1 : field(data, at, w[0]);
      const third = field(data, at + w[0] + w[1], w[2]);
      if (type === 0 || type === 1 || type === 2) entries.push({ num: first + k, gen: type === 2 ? 0 : third, type });
    }
  }
  return entries;
}

function field(data: Uint8Array, at: number, width: number): number {
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + (data[at + i] as number);
  return value;
}

