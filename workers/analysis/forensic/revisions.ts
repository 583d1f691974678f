// A PDF's revisions, read from its raw bytes the way a reader walks them
// backwards (ISO 32000-1 7.5.5-7.5.6): every incremental update appends its
// objects, a cross-reference section (a table or a stream, 7.5.8) and a
// trailer ending in `startxref` and `%%EOF`. Each section lists exactly the
// objects that revision wrote, so comparing it with the sections before it
// says what the update added, rewrote or freed. pdf-lib only ever shows the
// final state, hence this separate walk; pdfid counts the `%%EOF` markers,
// this says what each update did. The sections themselves are read by
// untrusted/pdf-xref.ts, which the count in front of qpdf shares.
import { readXrefSection, startxrefBefore, type XrefEntry } from '../../untrusted/pdf-xref.js';

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

/** Revisions read at most (a file with more is reported up to here). */
const MAX_REVISIONS = 10_000;
/** Bytes all section reads may scan together: a few times the file, plus room for small files. */
const READ_BUDGET_FACTOR = 4;
const READ_BUDGET_BASE = 1 << 20;

type Entry = XrefEntry;

export function scanRevisions(bytes: Uint8Array, linearized: boolean): RevisionScan {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sections: { start: number; end: number; entries: Entry[] | undefined; kind: Revision['xref'] }[] = [];
  let encrypted = false;
  let start = 0;
  // Sections read once per offset, and within a budget of bytes: a hostile
  // file of many %%EOF markers all pointing at one huge table must not cost
  // the table's size once per marker.
  const sectionsRead = new Map<number, { entries: Entry[]; kind: 'table' | 'stream'; encrypted: boolean } | undefined>();
  let budget = READ_BUDGET_FACTOR * bytes.byteLength + READ_BUDGET_BASE;
  const sectionAt = (offset: number) => {
    if (!sectionsRead.has(offset)) {
      const section = budget > 0 ? readXrefSection(buffer, offset) : undefined;
      budget -= section?.scanned ?? 0;
      // A hybrid file's /XRefStm counts for the objects it hides in object streams (type 2) only.
      sectionsRead.set(offset, section === undefined ? undefined : { entries: section.entries.filter((entry) => entry.hybrid !== true || entry.type === 2), kind: section.kind, encrypted: section.encrypted });
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
