// The file-structure facts of PDF/A (ISO 19005-1 and -2 clause 6.1) read from
// the file's bytes as written, which a parser that repairs as it reads
// (pdf-lib) forgets: the header line and its binary comment, data after the
// last %%EOF, the spacing of `N G obj` and of cross-reference sections, each
// stream's Length against the bytes between `stream` and `endstream`, hex
// strings, and the implementation limits on numbers, strings, names, arrays
// and dictionaries. One lexical pass over the whole file; stream data is
// skipped, never lexed. The bytes are a client's: the pass never throws and
// stops at the end of the buffer.

export interface StreamFacts {
  /** `N G` of the object holding the stream, when known. */
  readonly object: string;
  readonly declaredLength: number | undefined;
  /** The object number a `/Length N 0 R` names, resolved after the pass. */
  readonly lengthRef: number | undefined;
  readonly realLength: number;
  /** Bytes of the EOL before endstream: a writer may count it in Length, and readers (veraPDF too) accept either. */
  readonly eolBeforeEndstream: number;
  /** `stream` is followed by CRLF or LF (not CR alone, not data). */
  readonly streamEolCompliant: boolean;
  /** `endstream` is preceded by an EOL. */
  readonly endstreamEolCompliant: boolean;
  /** The stream dictionary has F, FFilter or FDecodeParms. */
  readonly externalFile: boolean;
}

export interface CosFacts {
  readonly headerOffset: number;
  readonly header: string;
  /** The four bytes after `%` on the line following the header (-1 when absent). */
  readonly binaryBytes: readonly number[];
  readonly postEofDataSize: number;
  /** Problems of `N G obj` / `endobj` spacing, one per object ("12 0 obj: ..."). */
  readonly objectSpacing: string[];
  /** Problems of `xref` sections: EOL after the keyword, the subsection headers. */
  readonly xrefEol: string[];
  readonly xrefSubsectionSpacing: string[];
  readonly containsXrefStream: boolean;
  readonly streams: StreamFacts[];
  readonly oddHexStrings: string[];
  readonly nonHexStrings: string[];
  readonly integers: number[];
  readonly reals: number[];
  /** Byte lengths of literal and hex strings (after escapes). */
  readonly longStrings: number[];
  readonly longNames: string[];
  readonly invalidUtf8Names: string[];
  readonly arraySizes: number[];
  readonly dictSizes: number[];
  readonly indirectObjects: number;
  /** The last trailer's keys and its ID array's strings as hex text (file order; an xref stream's dictionary counts). */
  readonly lastTrailer: { readonly keys: ReadonlySet<string>; readonly ids: readonly string[] } | undefined;
  /** The first trailer in file order (a linearized file's first-page trailer). */
  readonly firstTrailer: { readonly keys: ReadonlySet<string>; readonly ids: readonly string[] } | undefined;
  readonly linearized: boolean;
}

const WHITESPACE = new Uint8Array(256);
for (const b of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITESPACE[b] = 1;
const DELIMITER = new Uint8Array(256);
for (const b of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) DELIMITER[b] = 1;
const CR = 0x0d;
const LF = 0x0a;
/** Values listed per kind: enough to report, bounded for a hostile file. */
const MAX_LISTED = 1000;
/** Containers nested deeper are counted as one: no honest file nests this deep. */
const MAX_DEPTH = 256;

type Token =
  | { kind: 'int'; value: number; start: number; end: number }
  | { kind: 'real'; value: number; start: number; end: number }
  | { kind: 'word'; value: string; start: number; end: number }
  | { kind: 'name'; value: string; start: number; end: number }
  | { kind: 'string'; hex: string | undefined; start: number; end: number }
  | { kind: 'open' | 'close'; value: '[' | ']' | '<<' | '>>'; start: number; end: number };

interface Container {
  readonly kind: '[' | '<<';
  count: number;
  /** For dictionaries: the last key and the keys seen, with a few values kept (Length, ID). */
  key: string | undefined;
  /** The key before `key`: `/Length 12 0 R` reads 0 where a key goes, and R puts Length back. */
  previousKey: string | undefined;
  readonly keys: Set<string>;
  length: number | undefined;
  lengthRef: number | undefined;
  ids: string[];
  type: string | undefined;
  linearized: boolean;
}

export function scanCos(bytes: Uint8Array): CosFacts {
  return new Scanner(bytes).run();
}

class Scanner {
  private pos = 0;
  private readonly facts: {
    -readonly [K in keyof CosFacts]: CosFacts[K];
  };
  private readonly stack: Container[] = [];
  /** Recent tokens at the top level, to recognise `N G obj` and `N G R`. */
  private recent: Token[] = [];
  private currentObject = '';
  private readonly integerObjects = new Map<number, number>();
  private trailers: { keys: Set<string>; ids: string[]; at: number }[] = [];
  private pendingTrailer = false;
  private lastDict: Container | undefined;

  constructor(private readonly bytes: Uint8Array) {
    this.facts = {
      headerOffset: -1,
      header: '',
      binaryBytes: [],
      postEofDataSize: 0,
      objectSpacing: [],
      xrefEol: [],
      xrefSubsectionSpacing: [],
      containsXrefStream: false,
      streams: [],
      oddHexStrings: [],
      nonHexStrings: [],
      integers: [],
      reals: [],
      longStrings: [],
      longNames: [],
      invalidUtf8Names: [],
      arraySizes: [],
      dictSizes: [],
      indirectObjects: 0,
      lastTrailer: undefined,
      firstTrailer: undefined,
      linearized: false,
    };
  }

  run(): CosFacts {
    this.readHeader();
    this.readEof();
    while (this.pos < this.bytes.length) {
      const token = this.next();
      if (token === undefined) break;
      this.take(token);
    }
    const byPosition = [...this.trailers].sort((a, b) => a.at - b.at);
    const last = byPosition.at(-1);
    const first = byPosition[0];
    this.facts.lastTrailer = last && { keys: last.keys, ids: last.ids };
    this.facts.firstTrailer = first && { keys: first.keys, ids: first.ids };
    this.facts.streams = this.facts.streams.map((stream) =>
      stream.lengthRef === undefined ? stream : { ...stream, declaredLength: this.integerObjects.get(stream.lengthRef) },
    );
    return this.facts;
  }

  private readHeader(): void {
    const b = this.bytes;
    const at = indexOf(b, '%PDF-', 0, 1024);
    this.facts.headerOffset = at;
    if (at < 0) return;
    let end = at;
    while (end < b.length && b[end] !== CR && b[end] !== LF) end++;
    this.facts.header = latin1(b, at, end);
    let next = end;
    if (b[next] === CR) next++;
    if (b[next] === LF) next++;
    if (b[next] === 0x25) this.facts.binaryBytes = [b[next + 1] ?? -1, b[next + 2] ?? -1, b[next + 3] ?? -1, b[next + 4] ?? -1];
    else this.facts.binaryBytes = [-1, -1, -1, -1];
  }

  private readEof(): void {
    const b = this.bytes;
    const at = lastIndexOf(b, '%%EOF');
    if (at < 0) return;
    let after = b.length - (at + 5);
    const tail = b.subarray(at + 5);
    if (tail[0] === CR && tail[1] === LF) after -= 2;
    else if (tail[0] === CR || tail[0] === LF) after -= 1;
    this.facts.postEofDataSize = Math.max(0, after);
  }

  private skipSpaceAndComments(): void {
    const b = this.bytes;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (WHITESPACE[c]) this.pos++;
      else if (c === 0x25) {
        while (this.pos < b.length && b[this.pos] !== CR && b[this.pos] !== LF) this.pos++;
      } else return;
    }
  }

  private next(): Token | undefined {
    this.skipSpaceAndComments();
    const b = this.bytes;
    const start = this.pos;
    if (start >= b.length) return undefined;
    const c = b[start]!;
    if (c === 0x5b || c === 0x5d) {
      this.pos++;
      return { kind: c === 0x5b ? 'open' : 'close', value: c === 0x5b ? '[' : ']', start, end: this.pos };
    }
    if (c === 0x3c && b[start + 1] === 0x3c) {
      this.pos += 2;
      return { kind: 'open', value: '<<', start, end: this.pos };
    }
    if (c === 0x3e && b[start + 1] === 0x3e) {
      this.pos += 2;
      return { kind: 'close', value: '>>', start, end: this.pos };
    }
    if (c === 0x3c) return this.hexString(start);
    if (c === 0x28) return this.literalString(start);
    if (c === 0x2f) return this.name(start);
    if (c === 0x29 || c === 0x3e || c === 0x7b || c === 0x7d) {
      this.pos++;
      return this.next();
    }
    while (this.pos < b.length && !WHITESPACE[b[this.pos]!] && !DELIMITER[b[this.pos]!]) this.pos++;
    const text = latin1(b, start, this.pos);
    if (/^[+-]?\d+$/.test(text)) return { kind: 'int', value: Number(text), start, end: this.pos };
    if (/^[+-]?(\d+\.\d*|\.\d+|\d*\.)$/.test(text)) return { kind: 'real', value: Number(text), start, end: this.pos };
    return { kind: 'word', value: text, start, end: this.pos };
  }

  private hexString(start: number): Token {
    const b = this.bytes;
    this.pos = start + 1;
    let digits = 0;
    let nonHex = false;
    while (this.pos < b.length && b[this.pos] !== 0x3e) {
      const c = b[this.pos]!;
      if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)) digits++;
      else if (!WHITESPACE[c]) nonHex = true;
      this.pos++;
    }
    const text = latin1(b, start + 1, Math.min(this.pos, start + 201));
    this.pos++;
    if (digits % 2 === 1) this.list(this.facts.oddHexStrings, `<${text}>`);
    if (nonHex) this.list(this.facts.nonHexStrings, `<${text}>`);
    const length = Math.ceil(digits / 2);
    if (length >= 32768) this.list(this.facts.longStrings, length);
    return { kind: 'string', hex: text.replace(/\s+/g, '').toLowerCase(), start, end: this.pos };
  }

  private literalString(start: number): Token {
    const b = this.bytes;
    this.pos = start + 1;
    let depth = 1;
    let length = 0;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (c === 0x5c) {
        const e = b[this.pos + 1];
        if (e !== undefined && e >= 0x30 && e <= 0x37) {
          let n = 1;
          while (n < 3 && (b[this.pos + 1 + n] ?? 0) >= 0x30 && (b[this.pos + 1 + n] ?? 0) <= 0x37) n++;
          this.pos += 1 + n;
          length++;
          continue;
        }
        if (e === CR) {
          this.pos += b[this.pos + 2] === LF ? 3 : 2;
          continue;
        }
        if (e === LF) {
          this.pos += 2;
          continue;
        }
        this.pos += 2;
        length++;
        continue;
      }
      this.pos++;
      if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) break;
      length++;
    }
    if (length >= 32768) this.list(this.facts.longStrings, length);
    return { kind: 'string', hex: undefined, start, end: this.pos };
  }

  private name(start: number): Token {
    const b = this.bytes;
    this.pos = start + 1;
    const raw: number[] = [];
    while (this.pos < b.length && !WHITESPACE[b[this.pos]!] && !DELIMITER[b[this.pos]!]) {
      const c = b[this.pos]!;
      if (c === 0x23 && /^[0-9a-fA-F]{2}$/.test(latin1(b, this.pos + 1, this.pos + 3))) {
        raw.push(parseInt(latin1(b, this.pos + 1, this.pos + 3), 16));
        this.pos += 3;
      } else {
        raw.push(c);
        this.pos++;
      }
    }
    const value = String.fromCharCode(...raw.slice(0, 300));
    if (raw.length > 127) this.list(this.facts.longNames, value.slice(0, 60));
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(raw));
    } catch {
      this.list(this.facts.invalidUtf8Names, value.slice(0, 60));
    }
    return { kind: 'name', value, start, end: this.pos };
  }

  private take(token: Token): void {
    const top = this.stack.at(-1);
    if (token.kind === 'int') this.checkInteger(token.value);
    if (token.kind === 'real') this.checkReal(token.value);
    if (token.kind === 'open') {
      if (top !== undefined) this.addValue(top, token);
      if (this.stack.length < MAX_DEPTH) {
        this.stack.push({ kind: token.value as '[' | '<<', count: 0, key: undefined, previousKey: undefined, keys: new Set(), length: undefined, lengthRef: undefined, ids: [], type: undefined, linearized: false });
      }
      return;
    }
    if (token.kind === 'close') {
      const closed = this.stack.pop();
      if (closed === undefined) return;
      if (closed.kind === '[') this.list(this.facts.arraySizes, closed.count);
      else {
        this.list(this.facts.dictSizes, Math.floor(closed.count / 2));
        if (this.stack.length === 0) this.closeTopDict(closed);
      }
      return;
    }
    if (top !== undefined) {
      if (token.kind === 'word' && token.value === 'R' && top.kind === '<<') this.referenceInDict(top);
      else if (!(token.kind === 'word' && token.value === 'R')) this.addValue(top, token);
      else top.count -= 1; // `N G R` counted as three values: one reference
      return;
    }
    this.topLevel(token);
  }

  private addValue(container: Container, token: Token): void {
    container.count++;
    if (container.kind === '[') {
      const parent = this.stack.at(-2);
      if (parent?.key === 'ID' && token.kind === 'string') parent.ids.push(token.hex ?? latin1(this.bytes, token.start + 1, token.end - 1));
      return;
    }
    if (container.count % 2 === 1) {
      container.previousKey = container.key;
      container.key = token.kind === 'name' ? token.value : undefined;
      if (container.key !== undefined) container.keys.add(container.key);
      return;
    }
    if (container.key === 'Length' && token.kind === 'int') container.length = token.value;
    if (container.key === 'Type' && token.kind === 'name') container.type = token.value;
    if (container.key === 'Linearized') container.linearized = true;
  }

  /** `/Length 12 0 R`: the values 12 and 0 were counted; the R makes them one. */
  private referenceInDict(dict: Container): void {
    dict.count -= 1;
    dict.key = dict.previousKey;
    if (dict.key === 'Length') {
      dict.lengthRef = dict.length;
      dict.length = undefined;
    }
  }

  private closeTopDict(dict: Container): void {
    this.lastDict = dict;
    if (dict.linearized) this.facts.linearized = true;
    if (dict.type === 'XRef') {
      this.facts.containsXrefStream = true;
      this.trailers.push({ keys: dict.keys, ids: dict.ids, at: this.pos });
    }
    if (this.pendingTrailer) {
      this.pendingTrailer = false;
      this.trailers.push({ keys: dict.keys, ids: dict.ids, at: this.pos });
    }
  }

  private topLevel(token: Token): void {
    if (token.kind === 'word') {
      switch (token.value) {
        case 'obj':
          this.objectHeader(token);
          break;
        case 'endobj':
          this.endObject(token);
          break;
        case 'stream':
          this.stream(token);
          break;
        case 'xref':
          this.xref(token);
          break;
        case 'trailer':
          this.pendingTrailer = true;
          break;
        default:
          break;
      }
      this.recent = [];
      this.lastDict = undefined;
      return;
    }
    this.recent.push(token);
    if (this.recent.length > 3) this.recent.shift();
  }

  private objectHeader(token: Token): void {
    const [number, generation] = this.recent.slice(-2);
    this.lastDict = undefined;
    if (number?.kind !== 'int' || generation?.kind !== 'int') return;
    this.facts.indirectObjects++;
    this.currentObject = `${number.value} ${generation.value}`;
    const b = this.bytes;
    const problems: string[] = [];
    const before = b[number.start - 1];
    if (number.start > 0 && before !== CR && before !== LF) problems.push('not preceded by an EOL');
    if (generation.start - number.end !== 1 || !WHITESPACE[b[number.end]!]) problems.push('object and generation numbers not separated by one white-space');
    if (token.start - generation.end !== 1 || !WHITESPACE[b[generation.end]!]) problems.push('generation number and obj not separated by one white-space');
    if (b[token.end] !== CR && b[token.end] !== LF) problems.push('obj not followed by an EOL');
    if (problems.length > 0) this.list(this.facts.objectSpacing, `${this.currentObject} obj: ${problems.join(', ')}`);
    // An object that is a bare integer may be another stream's /Length.
    const save = this.pos;
    const value = this.next();
    const after = this.next();
    if (value?.kind === 'int' && after?.kind === 'word' && after.value === 'endobj') {
      this.checkInteger(value.value);
      this.integerObjects.set(number.value, value.value);
      this.endObject(after);
    } else this.pos = save;
  }

  private endObject(token: Token): void {
    const b = this.bytes;
    const problems: string[] = [];
    if (b[token.start - 1] !== CR && b[token.start - 1] !== LF) problems.push('endobj not preceded by an EOL');
    if (token.end < b.length && b[token.end] !== CR && b[token.end] !== LF) problems.push('endobj not followed by an EOL');
    if (problems.length > 0) this.list(this.facts.objectSpacing, `${this.currentObject} obj: ${problems.join(', ')}`);
  }

  private stream(token: Token): void {
    const b = this.bytes;
    const dict = this.lastDict;
    let dataStart = token.end;
    let streamEolCompliant = true;
    if (b[dataStart] === CR && b[dataStart + 1] === LF) dataStart += 2;
    else if (b[dataStart] === LF) dataStart += 1;
    else {
      streamEolCompliant = false;
      if (b[dataStart] === CR) dataStart += 1;
    }
    const declared = dict?.length;
    let endAt = -1;
    if (declared !== undefined && declared >= 0 && dataStart + declared <= b.length) {
      let probe = dataStart + declared;
      while (probe < b.length && WHITESPACE[b[probe]!]) probe++;
      if (startsWith(b, probe, 'endstream')) endAt = probe;
    }
    if (endAt < 0) endAt = indexOf(b, 'endstream', dataStart, b.length);
    if (endAt < 0) endAt = b.length;
    let dataEnd = endAt;
    let endstreamEolCompliant = false;
    if (b[dataEnd - 1] === LF) {
      endstreamEolCompliant = true;
      dataEnd -= b[dataEnd - 2] === CR ? 2 : 1;
    } else if (b[dataEnd - 1] === CR) {
      endstreamEolCompliant = true;
      dataEnd -= 1;
    }
    const eolBeforeEndstream = endAt - dataEnd;
    this.list(this.facts.streams, {
      object: this.currentObject,
      declaredLength: declared,
      lengthRef: dict?.lengthRef,
      realLength: Math.max(0, dataEnd - dataStart),
      eolBeforeEndstream,
      streamEolCompliant,
      endstreamEolCompliant,
      externalFile: dict !== undefined && (dict.keys.has('F') || dict.keys.has('FFilter') || dict.keys.has('FDecodeParms')),
    });
    this.pos = Math.min(b.length, endAt + 'endstream'.length);
  }

  private xref(token: Token): void {
    const b = this.bytes;
    let at = token.end;
    const eol = (from: number): number => (b[from] === CR && b[from + 1] === LF ? 2 : b[from] === CR || b[from] === LF ? 1 : 0);
    const first = eol(at);
    if (first === 0 || WHITESPACE[b[at + first]!]) this.list(this.facts.xrefEol, 'the xref keyword is not followed by a single EOL');
    at += first;
    // Subsections: "start count" EOL, then count entries of 20 bytes.
    for (let guard = 0; guard < 100_000; guard++) {
      while (at < b.length && WHITESPACE[b[at]!]) at++;
      const line = /^(\d+)([ \t]+)(\d+)([ \t]*)(\r\n|\r|\n)/.exec(latin1(b, at, Math.min(b.length, at + 40)));
      if (line === null) break;
      if (line[2] !== ' ') this.list(this.facts.xrefSubsectionSpacing, `subsection header "${line[1]}${line[2]}${line[3]}"`);
      if (line[4] !== '') this.list(this.facts.xrefEol, `subsection header "${line[1]} ${line[3]}" has white-space before its EOL`);
      at += line[0]!.length + Number(line[3]) * 20;
      if (at > b.length) break;
    }
    this.pos = Math.min(at, b.length);
  }

  private checkInteger(value: number): void {
    if (value > 2147483647 || value < -2147483648) this.list(this.facts.integers, value);
  }

  private checkReal(value: number): void {
    if (Math.abs(value) > 32767 || (value !== 0 && Math.abs(value) < 1.175e-38)) this.list(this.facts.reals, value);
  }

  private list<T>(into: T[], value: T): void {
    if (into.length < MAX_LISTED) into.push(value);
  }
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end && i < bytes.length; i++) out += String.fromCharCode(bytes[i]!);
  return out;
}

function startsWith(bytes: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

function indexOf(bytes: Uint8Array, text: string, from: number, to: number): number {
  const first = text.charCodeAt(0);
  const last = Math.min(to, bytes.length) - text.length;
  for (let i = Math.max(0, from); i <= last; i++) {
    if (bytes[i] === first && startsWith(bytes, i, text)) return i;
  }
  return -1;
}

function lastIndexOf(bytes: Uint8Array, text: string): number {
  for (let i = bytes.length - text.length; i >= 0; i--) if (startsWith(bytes, i, text)) return i;
  return -1;
}
