// The streams of a PDF file, found from its raw bytes without a PDF library:
// for a task that must know what a file's streams will decode to before it
// hands the file to a library it cannot interrupt (qpdf,
// seams/qpdf-decodes.ts). 0.1-0.3 ms for the 50-page letter's 104 objects.
//
// Each stream's dictionary is read where qpdf reads it: forward from the
// offset the newest cross-reference section gives for its object
// (pdf-xref.ts), so a dictionary written to be misread backwards (a string
// holding `1 0 obj <<` before the real `stream`) is read as qpdf reads it.
// This WebAssembly qpdf cannot repair: an offset two bytes off, or no
// cross-reference section at all, ends its run at once (exit 2, measured),
// so it never reads an object anywhere else. Most objects hold no string
// and no comment, and then a keyword in their bytes is one in their syntax:
// the `stream` or `endobj` that ends them is found with a native search
// between their offset and the next object's (never through a stream's
// data: searching the whole file cost 1.3 ms on the 6.7 MB of JPEGs of the
// optimize bench); the others go through the content lexer (the object
// syntax is the same, ISO 32000-1 7.3). When the sections cannot be read
// here, or an object cannot be, every `stream` keyword in the file is taken
// with an unknown dictionary: the caller then counts whatever looks
// compressed, more than qpdf would decode, never less.
//
// The data runs from after the keyword's end of line for /Length bytes when
// /Length (a number, or a reference to one that the cross-reference
// sections place in the file) lands on `endstream`; otherwise (a length in
// an object stream, a wrong one) to the end of the file: every decoder stops
// at its own end-of-data, so an unknown length never cuts a stream short,
// which a search for `endstream` could (the word may sit inside compressed
// data).
import { contentOperations } from './content-stream.js';
import { readXrefSection } from './pdf-xref.js';
import { PdfDict, PdfName, PdfRef, type PdfValue } from './pdf-values.js';

export interface RawStream {
  /** The dictionary, or undefined when it could not be read. */
  readonly dict: PdfDict | undefined;
  /** The stream's bytes as stored (see above for where they end): a view, made when asked for (most streams are only looked at). */
  data(): Uint8Array;
  /** Whether data() ends at the stream's own /Length (else at the end of the file). */
  readonly lengthKnown: boolean;
  /** What its filters decode to, when reading the file decoded it already (a cross-reference stream). */
  readonly decoded?: number;
  /** Its object number and generation, as the cross-reference sections give them (an encrypted file's key for the object is made from them); undefined when those could not be read. */
  readonly ref?: { readonly num: number; readonly gen: number };
}

/** Cross-reference sections followed through /Prev at most (a cycle or a hostile chain must end). */
const MAX_SECTIONS = 1024;

// Searched for as bytes: Buffer.indexOf converts a string needle on every call.
const STREAM = Buffer.from('stream', 'latin1');
const ENDOBJ = Buffer.from('endobj', 'latin1');

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** PDF white space (ISO 32000-1 table 1) and delimiters (table 2) end a keyword; anything else continues it. */
const ENDS_WORD = new Uint8Array(256);
for (const c of ' \t\r\n\f\0()<>[]{}/%') ENDS_WORD[c.charCodeAt(0)] = 1;

function isRegular(byte: number | undefined): boolean {
  return byte !== undefined && ENDS_WORD[byte] === 0;
}

/** Whether `buffer` holds `word` (ASCII) at `at`. */
function holds(buffer: Uint8Array, at: number, word: string): boolean {
  if (at < 0 || at + word.length > buffer.length) return false;
  for (let i = 0; i < word.length; i++) if (buffer[at + i] !== word.charCodeAt(i)) return false;
  return true;
}

/** Every stream qpdf may read, in the order of the file's objects. */
export function* rawStreams(bytes: Uint8Array): Generator<RawStream> {
  const buffer = view(bytes);
  for (const { dict, start, length, decoded, ref } of fromXref(buffer) ?? everyKeyword(buffer)) {
    const end = dataEnd(buffer, start, length);
    yield { dict, data: () => bytes.subarray(start, end), lengthKnown: end < buffer.length, ...(decoded === undefined ? {} : { decoded }), ...(ref === undefined ? {} : { ref }) };
  }
}

/**
 * Whether the file is encrypted as qpdf reads it: the newest
 * cross-reference section's trailer (or stream dictionary) has /Encrypt.
 * False when that section cannot be read here (nor can this qpdf build).
 */
export function isEncrypted(bytes: Uint8Array): boolean {
  const buffer = view(bytes);
  const first = newestSection(buffer);
  return first !== undefined && readXrefSection(buffer, first)?.encrypted === true;
}

/** The offset the last `startxref` gives. */
function newestSection(buffer: Buffer): number | undefined {
  const at = buffer.lastIndexOf('startxref', buffer.length, 'latin1');
  const first = at < 0 ? undefined : /^startxref\s+(\d{1,12})/.exec(buffer.toString('latin1', at, Math.min(buffer.length, at + 32)))?.[1];
  return first === undefined ? undefined : Number(first);
}

interface Found {
  readonly dict: PdfDict | undefined;
  /** Where the data starts. */
  readonly start: number;
  /** /Length, resolved when it is a reference. */
  readonly length?: number;
  readonly decoded?: number;
  readonly ref?: { readonly num: number; readonly gen: number };
}

/** The streams among the objects the cross-reference sections place in the file; undefined when those cannot be read here. */
function fromXref(buffer: Buffer): Found[] | undefined {
  const sections = objectOffsets(buffer);
  if (sections === undefined) return undefined;
  const { offsets, gens, decodedAt } = sections;
  const starts = [...new Set(offsets.values())].sort((a, b) => a - b);
  const found: Found[] = [];
  for (const [num, offset] of offsets) {
    const limit = starts[firstAtLeast(starts, offset + 1)] ?? buffer.length;
    const read = objectAt(buffer, num, offset, limit);
    if (read === 'irregular') return undefined;
    if (read === undefined) continue;
    const decoded = decodedAt.get(offset);
    const length = lengthOf(buffer, read.dict, offsets);
    found.push({ ...read, ...(length === undefined ? {} : { length }), ...(decoded === undefined ? {} : { decoded }), ref: { num, gen: gens.get(num) ?? 0 } });
  }
  return found.sort((a, b) => a.start - b.start);
}

/**
 * Object number → offset, from the section `startxref` names back through
 * /Prev: the newest section's entry wins, as in qpdf. An object a newer
 * section frees stays at its older offset here (qpdf would not read it):
 * counted when it is a stream, more than qpdf decodes, never less.
 */
function objectOffsets(buffer: Buffer): { offsets: Map<number, number>; gens: Map<number, number>; decodedAt: Map<number, number> } | undefined {
  const first = newestSection(buffer);
  if (first === undefined) return undefined;
  const offsets = new Map<number, number>();
  const gens = new Map<number, number>();
  /** Cross-reference streams' offsets, and what they decoded to. */
  const decodedAt = new Map<number, number>();
  const visited = new Set<number>();
  for (let next: number | undefined = first; next !== undefined; ) {
    if (visited.has(next) || visited.size >= MAX_SECTIONS) break;
    visited.add(next);
    const section = readXrefSection(buffer, next);
    if (section === undefined) return undefined;
    for (const entry of section.entries) {
      if (entry.type === 0 || offsets.has(entry.num)) continue;
      offsets.set(entry.num, entry.type === 1 ? entry.field2 : -1);
      gens.set(entry.num, entry.gen);
    }
    // A cross-reference stream is an object qpdf reads too, listed in its own section or not.
    const own = section.kind === 'stream' ? /^\s*(\d+)\s+\d+\s+obj/.exec(buffer.toString('latin1', next, Math.min(buffer.length, next + 32)))?.[1] : undefined;
    if (own !== undefined && !offsets.has(Number(own))) offsets.set(Number(own), next);
    if (section.decoded !== undefined) decodedAt.set(next, section.decoded);
    next = section.prev;
  }
  // Objects inside object streams (-1) hold no stream.
  for (const [num, offset] of offsets) if (offset < 0) offsets.delete(num);
  return { offsets, gens, decodedAt };
}

/** /Length as a number: written so, or the integer object a reference names, read at its offset. */
function lengthOf(buffer: Buffer, dict: PdfDict | undefined, offsets: ReadonlyMap<number, number>): number | undefined {
  const length = dict?.get('Length');
  if (typeof length === 'number') return length;
  if (!(length instanceof PdfRef)) return undefined;
  const at = offsets.get(length.num);
  if (at === undefined) return undefined;
  const body = afterHeader(buffer, at, length.num);
  if (body === undefined) return undefined;
  const value = /^\s*(\d{1,15})\s+endobj/.exec(buffer.toString('latin1', body, Math.min(buffer.length, body + 40)))?.[1];
  return value === undefined ? undefined : Number(value);
}

/** The first `word` (a keyword: not inside a longer word, not a name) in [from, to), or -1. */
function keywordIn(buffer: Buffer, word: Buffer, from: number, to: number): number {
  const region = buffer.subarray(from, to);
  for (let at = region.indexOf(word); at >= 0; at = region.indexOf(word, at + word.length)) {
    const before = buffer[from + at - 1];
    if (!isRegular(before) && before !== 0x2f && !isRegular(buffer[from + at + word.length])) return from + at;
  }
  return -1;
}

/** The index of the first value ≥ `value` in a sorted array (its length when none). */
function firstAtLeast(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as number) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The object `num` at `offset` (it ends before `limit`, the next object's
 * offset): its dictionary and data start when it is a stream; undefined when
 * it is not one, or another object is there (qpdf fails if it reads it);
 * 'irregular' when it cannot be read here.
 */
function objectAt(buffer: Buffer, num: number, offset: number, limit: number): Found | undefined | 'irregular' {
  const body = afterHeader(buffer, offset, num);
  if (body === undefined) return undefined;
  const stream = keywordIn(buffer, STREAM, body, limit);
  // Only before the `stream` keyword: an `endobj` there ends a dictionary object; one after it ends the stream.
  const endobj = keywordIn(buffer, ENDOBJ, body, stream < 0 ? limit : stream);
  const end = endobj >= 0 ? endobj : stream;
  if (end >= 0 && plainSyntax(buffer, body, end)) {
    if (end === endobj) return undefined;
    const dict = plainDictionary(buffer.toString('latin1', body, end)) ?? lexedDictionary(buffer.subarray(body, end + 6));
    return dict === undefined ? 'irregular' : { dict, start: dataStart(buffer, end + 6) };
  }
  return lexedObject(buffer, offset, limit);
}

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

/** Just past `num gen obj` at `offset` (white space before allowed); undefined when another object, or none, is there. */
function afterHeader(buffer: Buffer, offset: number, num: number): number | undefined {
  let at = offset;
  while (isSpace(buffer[at])) at++;
  let read = 0;
  const digitsFrom = at;
  while (isDigit(buffer[at]) && at - digitsFrom < 10) read = read * 10 + ((buffer[at++] as number) - 0x30);
  if (at === digitsFrom || read !== num || !isSpace(buffer[at])) return undefined;
  while (isSpace(buffer[at])) at++;
  const generation = at;
  while (isDigit(buffer[at])) at++;
  if (at === generation || !isSpace(buffer[at])) return undefined;
  while (isSpace(buffer[at])) at++;
  return holds(buffer, at, 'obj') && !isRegular(buffer[at + 3]) ? at + 3 : undefined;
}

/**
 * No literal string and no comment in [from, to): nothing there can hide a
 * keyword (a hex string holds only hex digits and white space, a name
 * starts with `/`), so the first keyword found is the object's own.
 */
function plainSyntax(buffer: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = buffer[i];
    if (c === 0x28 || c === 0x29 || c === 0x25) return false;
  }
  return true;
}

/** The object read with the content lexer, within its bounds. */
function lexedObject(buffer: Buffer, offset: number, limit: number): Found | undefined | 'irregular' {
  const region = buffer.subarray(offset, limit);
  const operations = contentOperations(region);
  operations.next(); // `num gen obj`, checked by the caller
  const next = operations.next();
  if (next.done === true) return 'irregular';
  const { operator, operands, end } = next.value;
  if (operator === 'endobj') return undefined;
  if (operator !== 'stream' || operands.length !== 1 || !(operands[0] instanceof PdfDict)) return 'irregular';
  return { dict: operands[0], start: dataStart(buffer, offset + end) };
}

/** The dictionary when `bytes` are exactly a dictionary and the keyword `stream`. */
function lexedDictionary(bytes: Uint8Array): PdfDict | undefined {
  let found: PdfDict | undefined;
  for (const operation of contentOperations(bytes)) {
    if (found !== undefined || operation.operator !== 'stream' || operation.end !== bytes.length) return undefined;
    const [dict, ...rest] = operation.operands;
    if (!(dict instanceof PdfDict) || rest.length > 0) return undefined;
    found = dict;
  }
  return found;
}

// A dictionary of plain entries only: names without # escapes, whole
// numbers, references (`<< /Length 12 0 R /Filter /FlateDecode >>`). Most
// stream dictionaries are, and a regular expression reads them in a third of
// the lexer's time; anything else goes to the lexer.
const PLAIN = /^\s*<<((?:\s*\/[\w.-]+\s*(?:\/[\w.-]+|\d+\s+\d+\s+R\b|\d+))*)\s*>>\s*$/;
const PLAIN_ENTRY = /\/([\w.-]+)\s*(?:\/([\w.-]+)|(\d+)\s+(\d+)\s+R\b|(\d+))/g;

function plainDictionary(text: string): PdfDict | undefined {
  const body = PLAIN.exec(text)?.[1];
  if (body === undefined) return undefined;
  const entries = new Map<string, PdfValue>();
  PLAIN_ENTRY.lastIndex = 0;
  for (let m = PLAIN_ENTRY.exec(body); m !== null; m = PLAIN_ENTRY.exec(body)) {
    const [, key, name, num, gen, int] = m;
    entries.set(key as string, name !== undefined ? new PdfName(name) : num !== undefined ? new PdfRef(Number(num), Number(gen)) : Number(int));
  }
  return new PdfDict(entries);
}

/** Every `stream` keyword in the file, its dictionary unknown: when the cross-reference sections cannot be read here. */
function everyKeyword(buffer: Buffer): Found[] {
  const found: Found[] = [];
  for (let at = buffer.indexOf(STREAM, 0); at >= 0; at = buffer.indexOf(STREAM, at + 6)) {
    // `endstream`, or the word inside a longer one.
    if (isRegular(buffer[at - 1]) || isRegular(buffer[at + 6])) continue;
    found.push({ dict: undefined, start: dataStart(buffer, at + 6) });
  }
  return found;
}

/**
 * Where the data starts: after the end of line that follows the keyword
 * (CR LF or LF, 7.3.8.1; qpdf also takes CR alone and spaces before it, with
 * a warning), or right after the keyword when there is none (qpdf reads on).
 */
function dataStart(buffer: Buffer, after: number): number {
  let at = after;
  while (buffer[at] === 0x20 || buffer[at] === 0x09) at++;
  if (buffer[at] === 0x0d) return buffer[at + 1] === 0x0a ? at + 2 : at + 1;
  if (buffer[at] === 0x0a) return at + 1;
  return after;
}

/** start + /Length when `endstream` follows there; the end of the file otherwise. */
function dataEnd(buffer: Buffer, start: number, length: number | undefined): number {
  if (length === undefined || !Number.isInteger(length) || length < 0 || start + length > buffer.length) return buffer.length;
  let at = start + length;
  while (at < buffer.length && at < start + length + 4 && (buffer[at] === 0x0d || buffer[at] === 0x0a || buffer[at] === 0x20)) at++;
  return holds(buffer, at, 'endstream') ? start + length : buffer.length;
}

/** The dictionary's filters, outermost first, with LZW's EarlyChange; undefined when /Filter is not a name or an array of names (written indirectly, or malformed). */
export function filtersOf(dict: PdfDict): Array<{ name: string; earlyChange?: number }> | undefined {
  const filter = dict.get('Filter');
  if (filter === undefined) return [];
  const names = filter instanceof PdfName ? [filter] : Array.isArray(filter) ? filter : undefined;
  if (names === undefined || !names.every((name) => name instanceof PdfName)) return undefined;
  const parms = dict.get('DecodeParms');
  return (names as PdfName[]).map((name, i) => {
    const own: PdfValue | undefined = Array.isArray(parms) ? parms[i] : i === 0 ? parms : undefined;
    const earlyChange = own instanceof PdfDict ? own.get('EarlyChange') : undefined;
    return typeof earlyChange === 'number' ? { name: name.name, earlyChange } : { name: name.name };
  });
}
