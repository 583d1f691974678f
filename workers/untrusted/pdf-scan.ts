// What a task learns from a PDF's raw bytes, before or instead of a
// qpdf run: native-speed searches (Buffer.indexOf), no parsing.
//
// Two searches can be trusted to miss nothing:
// - `/Encrypt` lives in the trailer or the cross-reference stream's
//   dictionary, which are never compressed (ISO 32000-1 7.5.4, 7.5.8).
// - A signature's /ByteRange lists file offsets that exclude its /Contents,
//   so a signature dictionary is always readable in the file's bytes (a
//   dictionary inside a compressed object stream could not be excluded).
// They may over-find (the same bytes as text in an uncompressed stream):
// encryption is then confirmed with qpdf; a signature must also have a
// /ByteRange of four integers, which a placeholder not yet signed lacks.

/** Where the header may start: readers accept it within the first 1024 bytes (Acrobat's rule, ISO 32000-1 annex H.3). */
const HEADER_WINDOW = 1024;

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function hasPdfHeader(bytes: Uint8Array): boolean {
  const at = view(bytes).subarray(0, HEADER_WINDOW + 5).indexOf('%PDF-', 0, 'latin1');
  return at >= 0 && at <= HEADER_WINDOW;
}

/** PDF white-space and delimiter characters (ISO 32000-1 7.2.2): what may end a name. */
export function endsName(byte: number | undefined): boolean {
  return byte === undefined || ' \t\r\n\f\0()<>[]{}/%'.includes(String.fromCharCode(byte));
}

/** Offsets where the name `name` (with its slash) occurs as a whole token. */
function* nameAt(bytes: Buffer, name: string): Generator<number> {
  for (let at = bytes.indexOf(name, 0, 'latin1'); at >= 0; at = bytes.indexOf(name, at + name.length, 'latin1')) {
    if (endsName(bytes[at + name.length])) yield at;
  }
}

/** The key /Encrypt appears: the file may be encrypted (qpdf confirms). */
export function mentionsEncryption(bytes: Uint8Array): boolean {
  return !nameAt(view(bytes), '/Encrypt').next().done;
}

const BYTE_RANGE = /^\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/;

/** A signature dictionary found in the file's bytes: where its /ByteRange is, and the four numbers as written. */
export interface SignatureDictionary {
  readonly at: number;
  readonly byteRange: readonly [number, number, number, number];
}

/**
 * What a signature is, for every route (linearize, optimize, parse,
 * forensic-analyze): a signature dictionary with a filled-in /ByteRange,
 * found in the file's bytes. Signatures of the current revision and of
 * earlier ones kept by incremental updates (each still verifies against its
 * revision until the file is rewritten), field signatures, document
 * timestamps and usage-rights (/Perms /UR3) signatures alike; an empty
 * signature field, or a placeholder not yet signed, is not one. Whether the
 * range is consistent (it leaves out exactly the /Contents) is for the
 * checker to say (analysis/forensic/signatures.ts): a signature that does
 * not verify is still a signature a rewrite would destroy.
 */
export function* signatureDictionaries(bytes: Uint8Array): Generator<SignatureDictionary> {
  const buffer = view(bytes);
  for (const at of nameAt(buffer, '/ByteRange')) {
    const match = BYTE_RANGE.exec(buffer.toString('latin1', at, at + 120));
    if (match !== null) yield { at, byteRange: [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])] };
  }
}

export function countSignatures(bytes: Uint8Array): number {
  let count = 0;
  for (const _ of signatureDictionaries(bytes)) count++;
  return count;
}

/** Where a complete file's last `%%EOF` marker must be (ISO 32000-1 7.5.5; readers look in the last 1024 bytes). */
const EOF_WINDOW = 1024;

/** A file without `%%EOF` near its end was most likely cut short. */
export function looksTruncated(bytes: Uint8Array): boolean {
  return view(bytes).subarray(Math.max(0, bytes.byteLength - EOF_WINDOW)).indexOf('%%EOF', 0, 'latin1') < 0;
}

const LINEARIZATION_WINDOW = 1024;

/**
 * Pages of a linearized file, from its linearization parameter dictionary:
 * the first object, which holds /N, the number of pages (ISO 32000-1 F.2.2).
 * Undefined when the file does not start with one.
 */
export function linearizedPageCount(bytes: Uint8Array): number | undefined {
  const head = view(bytes).toString('latin1', 0, Math.min(bytes.byteLength, LINEARIZATION_WINDOW));
  const dictionary = /\d+\s+\d+\s+obj\s*<<([^>]*\/Linearized[^>]*)>>/.exec(head)?.[1];
  const pages = dictionary === undefined ? undefined : /\/N\s+(\d+)/.exec(dictionary)?.[1];
  return pages === undefined ? undefined : Number(pages);
}
