// The parts of a CMap program (Adobe TN 5014, TN 5411; ISO 32000-1 §9.7.5,
// §9.10.3) the font rules read: a ToUnicode CMap's code → text mappings
// (bfchar, bfrange in both forms), the codespace ranges (how many bytes a
// code takes), and an embedded CMap's WMode and usecmap. Tolerant as
// readers are: a malformed line is skipped; bounded for hostile input.
export interface CMapProgram {
  /** Code → the UTF-16 text it maps to (ToUnicode). */
  readonly unicode: ReadonlyMap<number, string>;
  /** [low, high, byte length] of each codespace range. */
  readonly codespaces: readonly (readonly [number, number, number])[];
  /** `/WMode n def` in the program; undefined when it does not say. */
  readonly wmode: number | undefined;
  /** `/Name usecmap`: the CMap it builds on. */
  readonly usecmap: string | undefined;
  /** [low, high, first CID] of each cidrange, and of each cidchar as a range of one: an embedded CMap's codes → CIDs. */
  readonly cidRanges: readonly (readonly [number, number, number])[];
}

/** The CID an embedded CMap gives a code; undefined where no cidrange or cidchar covers it. */
export function cidOf(cmap: CMapProgram, code: number): number | undefined {
  for (const [low, high, first] of cmap.cidRanges) if (code >= low && code <= high) return first + (code - low);
  return undefined;
}

/** Mappings read at most (a bfrange of 65,536 codes is the largest one real CMaps write). */
const MAX_MAPPINGS = 200_000;

const hexValue = (hex: string) => (hex.length === 0 ? 0 : Number.parseInt(hex.slice(-8), 16));

function utf16(hex: string): string {
  let text = '';
  for (let i = 0; i + 4 <= hex.length; i += 4) text += String.fromCharCode(Number.parseInt(hex.slice(i, i + 4), 16));
  if (hex.length % 4 === 2) text += String.fromCharCode(Number.parseInt(hex.slice(-2), 16));
  return text;
}

export function parseCMap(bytes: Uint8Array): CMapProgram {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const unicode = new Map<number, string>();
  const codespaces: [number, number, number][] = [];
  const clean = (hex: string) => hex.replace(/[^0-9a-fA-F]/g, '');
  for (const block of text.matchAll(/begincodespacerange([\s\S]*?)endcodespacerange/g)) {
    for (const m of block[1]!.matchAll(/<([^>]*)>\s*<([^>]*)>/g)) {
      const low = clean(m[1]!);
      codespaces.push([hexValue(low), hexValue(clean(m[2]!)), Math.max(1, Math.ceil(low.length / 2))]);
    }
  }
  for (const block of text.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1]!.matchAll(/<([^>]*)>\s*<([^>]*)>/g)) {
      if (unicode.size >= MAX_MAPPINGS) break;
      unicode.set(hexValue(clean(m[1]!)), utf16(clean(m[2]!)));
    }
  }
  for (const block of text.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1]!.matchAll(/<([^>]*)>\s*<([^>]*)>\s*(<[^>]*>|\[[^\]]*\])/g)) {
      const low = hexValue(clean(m[1]!));
      const high = Math.min(hexValue(clean(m[2]!)), low + MAX_MAPPINGS);
      const target = m[3]!;
      if (target.startsWith('[')) {
        const items = [...target.matchAll(/<([^>]*)>/g)].map((item) => clean(item[1]!));
        for (let code = low; code <= high && code - low < items.length && unicode.size < MAX_MAPPINGS; code++) unicode.set(code, utf16(items[code - low]!));
      } else {
        const start = clean(target);
        // The last byte counts up across the range (§9.10.3).
        const prefix = start.slice(0, -2);
        const last = Number.parseInt(start.slice(-2) || '0', 16);
        for (let code = low; code <= high && unicode.size < MAX_MAPPINGS; code++) {
          const value = last + (code - low);
          unicode.set(code, utf16(prefix + (value & 0xff).toString(16).padStart(2, '0')));
        }
      }
    }
  }
  const cidRanges: [number, number, number][] = [];
  for (const block of text.matchAll(/begincidrange([\s\S]*?)endcidrange/g)) {
    for (const m of block[1]!.matchAll(/<([^>]*)>\s*<([^>]*)>\s*(\d+)/g)) if (cidRanges.length < MAX_MAPPINGS) cidRanges.push([hexValue(clean(m[1]!)), hexValue(clean(m[2]!)), Number(m[3])]);
  }
  for (const block of text.matchAll(/begincidchar([\s\S]*?)endcidchar/g)) {
    for (const m of block[1]!.matchAll(/<([^>]*)>\s*(\d+)/g)) if (cidRanges.length < MAX_MAPPINGS) cidRanges.push([hexValue(clean(m[1]!)), hexValue(clean(m[1]!)), Number(m[2])]);
  }
  const wmode = text.match(/\/WMode\s+(\d+)\s+def/);
  const usecmap = text.match(/\/([^\s/<>[\]()]+)\s+usecmap/);
  return { unicode, codespaces, wmode: wmode === null ? undefined : Number(wmode[1]), usecmap: usecmap?.[1], cidRanges };
}

/** Splits shown bytes into codes by the codespace ranges (one byte each without ranges), §9.7.6.2. */
export function splitCodes(bytes: Uint8Array, codespaces: readonly (readonly [number, number, number])[], fallbackLength = 1): number[] {
  const codes: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    let matched = 0;
    for (let length = 1; length <= 4 && i + length <= bytes.length && matched === 0; length++) {
      let code = 0;
      for (let k = 0; k < length; k++) code = code * 256 + bytes[i + k]!;
      if (codespaces.some(([low, high, n]) => n === length && code >= low && code <= high)) {
        codes.push(code);
        matched = length;
      }
    }
    if (matched === 0) {
      const length = Math.min(fallbackLength, bytes.length - i);
      let code = 0;
      for (let k = 0; k < length; k++) code = code * 256 + bytes[i + k]!;
      codes.push(code);
      matched = length;
    }
    i += matched;
  }
  return codes;
}
