// Whether a PDF's cross-reference data would send pdf.js to rebuild it
// (XRef.indexObjects, "Indexing all PDF objects"), checked on the raw bytes
// before pdf.js takes them, with pdf.js's own rules (pdf.worker.mjs
// readXRef, readXRefTable, fetchUncompressed):
// - the last `startxref` points at a table (`xref`) or a stream (`N G obj`),
//   and so does every /Prev and /XRefStm after it (ISO 32000-1 7.5.5, 7.5.8.4);
// - a table is subsection headers `first count`, each followed by exactly
//   `count` entries `offset gen n|f`, then `trailer` (7.5.4); anything else
//   between them is damage;
// - every in-use entry (type 1) points at `num gen obj` for its own number
//   and generation (7.5.4: "the byte offset ... of the object"); pdf.js
//   rebuilds when one of the first or last page's objects does not, qpdf
//   when any does. Entries inside object streams (type 2) are not opened.
// Offsets count from the `%PDF-` header, as pdf.js and qpdf count them
// (a file may carry bytes before it, annex H.3).
//
// Cost: one pass over each table's bytes and a few bytes at each object's
// offset, no strings built per entry: ~30 µs a corpus file, 13.5 ms for a
// 100,000-entry table, against ~130 ms for pdf.js to open that file and
// read page 1 (bench/MEASUREMENTS.md, "Reading: the cross-reference check").
import { readXrefSection, type XrefEntry } from './pdf-xref.js';

/** Why the data is damaged, as a clause for the client ("its startxref ..."); undefined when it is sound. */
export function crossReferenceDamage(bytes: Uint8Array): string | undefined {
  const base = headerAt(bytes);
  const tailFrom = Math.max(0, bytes.length - TAIL);
  const at = lastIndexOf(bytes, STARTXREF, tailFrom);
  if (at < 0) return 'it has no startxref';
  let p = skipSpace(bytes, at + STARTXREF.length);
  const start = integerAt(bytes, p);
  if (start === NONE) return 'its startxref gives no offset';

  // First the sections, newest first as pdf.js reads them (readXRef: /XRefStm, then /Prev); then their entries.
  const seen = new Set<number>();
  const sections: Array<Table | readonly XrefEntry[]> = [];
  const queue: number[] = [start];
  let entries = 0;
  while (queue.length > 0 && seen.size < MAX_SECTIONS && entries < MAX_ENTRIES) {
    const offset = queue.shift() as number;
    if (seen.has(offset)) continue;
    seen.add(offset);
    const position = base + offset;
    const where = seen.size === 1 ? 'its startxref' : `the cross-reference section it links to at byte ${offset}`;
    if (position >= bytes.length) return `${where} points past the end of the file`;
    p = skipSpace(bytes, position);
    if (startsWith(bytes, p, XREF)) {
      const table = readTable(bytes, p + XREF.length);
      if (typeof table === 'string') return `its cross-reference table at byte ${offset} ${table}`;
      sections.push(table);
      entries += table.nums.length;
      const trailer = trailerKeys(bytes, table.end);
      if (trailer.xrefStm !== undefined) queue.push(trailer.xrefStm);
      if (trailer.prev !== undefined) queue.push(trailer.prev);
      continue;
    }
    if (!objectHeader(bytes, p)) return `${where} does not point at a cross-reference table or stream`;
    const section = readXrefSection(view(bytes), position);
    if (section === undefined || section.kind !== 'stream') return `its cross-reference stream at byte ${offset} cannot be read`;
    sections.push(section.entries);
    entries += section.entries.length;
    if (section.prev !== undefined) queue.push(section.prev);
  }

  // An older section's entry counts only where no newer one (free or not) names the object. Most files
  // have one section: no set of numbers then (a Set of 100,000 numbers cost ~10 ms, more than the check).
  const hidden = sections.length > 1 ? new Set<number>() : undefined;
  const damaged = (num: number, target: number, gen: number): boolean => {
    if (hidden !== undefined) {
      if (hidden.has(num)) return false;
      hidden.add(num);
    }
    // pdf.js takes an in-use entry at offset 0 as no entry (XRef.getEntry): not a reason to rebuild.
    return target > 0 && !objectAt(bytes, base + target, num, gen);
  };
  for (const section of sections) {
    if (isTable(section)) {
      for (let i = 0; i < section.nums.length; i++) {
        const num = section.nums[i] as number;
        const target = section.offsets[i] as number;
        if (damaged(num, target, section.gens[i] as number)) return objectClause(num, target);
      }
    } else {
      // Entries inside object streams (type 2) are not opened; they hide older entries as free ones do.
      for (const entry of section) if (damaged(entry.num, entry.type === 1 ? entry.field2 : FREE, entry.gen)) return objectClause(entry.num, entry.field2);
    }
  }
  return undefined;
}

function isTable(section: Table | readonly XrefEntry[]): section is Table {
  return !Array.isArray(section);
}

/** Where pdf.js looks for startxref: the file's last kilobytes. */
const TAIL = 2048;
/** Sections followed at most (pdf.js follows every one; a loop is caught by `seen`). */
const MAX_SECTIONS = 4096;
/** Entries checked at most: past this the check stops and trusts the rest (pdf-xref.ts bounds one section the same way). */
const MAX_ENTRIES = 2_000_000;
const HEADER_WINDOW = 1024;

const bytesOf = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));
const STARTXREF = bytesOf('startxref');
const XREF = bytesOf('xref');
const TRAILER = bytesOf('trailer');
const OBJ = bytesOf('obj');
const PDF_HEADER = bytesOf('%PDF-');

function objectClause(num: number, offset: number): string {
  return `its entry for object ${num} gives byte ${offset}, where that object does not start`;
}

/** A free entry's offset in Table: not checked, but it still hides the same number in older sections (pdf.js keeps the newest entry, free or not). */
const FREE = -1;

interface Table {
  readonly nums: number[];
  /** FREE for a free entry. */
  readonly offsets: number[];
  readonly gens: number[];
  /** Where `trailer` starts. */
  readonly end: number;
}

/** A table's entries after `xref`, or what is wrong with it. pdf.js's tolerance: tokens separated by any white space. */
function readTable(bytes: Uint8Array, from: number): Table | string {
  const nums: number[] = [];
  const offsets: number[] = [];
  const gens: number[] = [];
  let p = skipSpace(bytes, from);
  let firstSection = true;
  for (;;) {
    if (startsWith(bytes, p, TRAILER)) break;
    const first = integerAt(bytes, p);
    const count = first === NONE ? NONE : integerAt(bytes, skipSpace(bytes, tokenEnd));
    if (count === NONE) return 'has something other than a subsection header or trailer';
    p = skipSpace(bytes, tokenEnd);
    let number = first;
    for (let i = 0; i < count; i++) {
      const offset = integerAt(bytes, p);
      const gen = offset === NONE ? NONE : integerAt(bytes, skipSpace(bytes, tokenEnd));
      const kindAt = gen === NONE ? -1 : skipSpace(bytes, tokenEnd);
      const kind = bytes[kindAt];
      if (gen === NONE || (kind !== N && kind !== F) || !endsToken(bytes[kindAt + 1])) {
        return `has fewer than the ${count} entries its subsection ${first} declares, or an entry that is not "offset generation n|f"`;
      }
      // A table that starts at 1 with the free head of the list is read as starting at 0 (pdf.js readXRefTable).
      if (i === 0 && number === 1 && kind === F && firstSection) number = 0;
      nums.push(number);
      offsets.push(kind === N ? offset : FREE);
      gens.push(gen);
      number++;
      p = skipSpace(bytes, kindAt + 1);
      if (nums.length >= MAX_ENTRIES) return { nums, offsets, gens, end: p };
    }
    firstSection = false;
  }
  return { nums, offsets, gens, end: p };
}

/** /Prev and /XRefStm from the trailer dictionary after `trailer`. */
function trailerKeys(bytes: Uint8Array, at: number): { prev?: number; xrefStm?: number } {
  const text = view(bytes).toString('latin1', at, Math.min(bytes.length, at + 4096)).split('startxref')[0] ?? '';
  const prev = /\/Prev\s+(\d{1,12})(?!\s+\d+\s+R)/.exec(text)?.[1];
  const xrefStm = /\/XRefStm\s+(\d{1,12})/.exec(text)?.[1];
  return { ...(prev === undefined ? {} : { prev: Number(prev) }), ...(xrefStm === undefined ? {} : { xrefStm: Number(xrefStm) }) };
}

/** `num gen obj` at `at` (after white space and comments), as pdf.js's fetchUncompressed requires. */
function objectAt(bytes: Uint8Array, at: number, num: number, gen: number): boolean {
  if (at >= bytes.length) return false;
  return objectHeader(bytes, skipSpace(bytes, at), num, gen);
}

/** `N G obj` at `at`; with `num` and `gen`, for that object only. */
function objectHeader(bytes: Uint8Array, at: number, num?: number, gen?: number): boolean {
  const number = integerAt(bytes, at);
  if (number === NONE || (num !== undefined && number !== num) || !isSpace(bytes[tokenEnd])) return false;
  const generation = integerAt(bytes, skipSpace(bytes, tokenEnd));
  if (generation === NONE || (gen !== undefined && generation !== gen) || !isSpace(bytes[tokenEnd])) return false;
  // pdf.js also takes "obj1234" here (a writer's bug it tolerates), so the keyword need not end the token.
  return startsWith(bytes, skipSpace(bytes, tokenEnd), OBJ);
}

const N = 0x6e;
const F = 0x66;

/** integerAt's answer when there is no integer. */
const NONE = -1;
/** Where the token integerAt read ends. A variable, not a returned object: 100,000 entries made 300,000 objects (readTable was 11 ms of 20 on such a table). */
let tokenEnd = 0;

/** A run of digits at `at` (at most 12: an offset past a terabyte is not one), ending a token; sets tokenEnd. */
function integerAt(bytes: Uint8Array, at: number): number {
  let value = 0;
  let p = at;
  while (p < bytes.length && p - at < 12) {
    const digit = (bytes[p] as number) - 0x30;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
    p++;
  }
  tokenEnd = p;
  return p === at || !endsToken(bytes[p]) ? NONE : value;
}

/** PDF white space (ISO 32000-1 7.2.2, Table 1). */
function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function endsToken(byte: number | undefined): boolean {
  return byte === undefined || isSpace(byte) || byte === 0x25 /* % */ || byte === 0x2f /* / */ || byte === 0x3c /* < */ || byte === 0x5b /* [ */;
}

/** Past white space and comments (a comment runs to the end of its line, 7.2.4). */
function skipSpace(bytes: Uint8Array, at: number): number {
  let p = at;
  while (p < bytes.length) {
    const byte = bytes[p] as number;
    if (isSpace(byte)) p++;
    else if (byte === 0x25) {
      while (p < bytes.length && bytes[p] !== 0x0a && bytes[p] !== 0x0d) p++;
    } else break;
  }
  return p;
}

function startsWith(bytes: Uint8Array, at: number, word: Uint8Array): boolean {
  if (at + word.length > bytes.length) return false;
  for (let i = 0; i < word.length; i++) if (bytes[at + i] !== word[i]) return false;
  return true;
}

function lastIndexOf(bytes: Uint8Array, word: Uint8Array, from: number): number {
  const at = view(bytes).lastIndexOf(word);
  return at >= from ? at : -1;
}

/** Where `%PDF-` starts: pdf.js and qpdf count offsets from there (pdf.js checkHeader's moveStart). */
function headerAt(bytes: Uint8Array): number {
  const at = view(bytes).subarray(0, HEADER_WINDOW + PDF_HEADER.length).indexOf(PDF_HEADER);
  return at < 0 ? 0 : at;
}

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
