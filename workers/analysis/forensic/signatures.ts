// The signatures in a PDF and what each still proves. A signature
// dictionary is always plain bytes in the file (its /ByteRange must exclude
// its /Contents: untrusted/pdf-scan.ts), so each is found in the raw bytes,
// every revision's included, and checked against exactly the bytes it
// covers. The revision it covers is the one whose `%%EOF` its range ends
// at; anything after that range was written after signing.
import type { Revision } from './revisions.js';
import { checkCms } from './cms-check.js';
import { signatureDictionaries } from '../../untrusted/pdf-scan.js';

export interface FoundSignature {
  /** The signature dictionary's object number, when its `N G obj` header was found. */
  readonly object: number | null;
  readonly byteRange: readonly [number, number, number, number];
  readonly subFilter: string | null;
  /** /M as written (a PDF date), or null. */
  readonly claimedTime: string | null;
  readonly contents: Uint8Array;
  /** A /Type /DocTimeStamp (ETSI.RFC3161): a timestamp token, not a person's signature. */
  readonly timestamp: boolean;
  /** Why the range cannot be what was signed (it does not leave out exactly the /Contents); null when it can. */
  readonly rangeProblem: string | null;
}

export interface SignatureReport {
  readonly field: string | null;
  readonly signer: string | null;
  readonly time: string | null;
  readonly sub_filter: string | null;
  readonly byte_range: readonly [number, number, number, number];
  /** The revision (1-based) whose end the signature's range reaches; null when none ends there. */
  readonly revision: number | null;
  readonly covers_whole_file: boolean;
  /** The covered bytes' digest equals the signed one. null: the CMS could not be read. */
  readonly digest_matches: boolean | null;
  /** The signature value verifies with the signer certificate's public key. null: not checkable. */
  readonly signature_valid: boolean | null;
  /** Bytes were written after the signed range (later incremental updates). */
  readonly modified_after_signing: boolean;
  /** What the later revisions changed in what a reader shows: filled in by changes.ts. */
  readonly changes_after_signing: readonly SignedChange[];
  readonly problem: string | null;
}

export interface SignedChange {
  readonly kind: 'page-content' | 'pages-added' | 'pages-removed' | 'annotations' | 'form-fields';
  readonly pages?: readonly number[];
  readonly fields?: readonly string[];
}

/** Signatures checked at most: each costs a digest of the file, and a later change a second parse of it. */
const MAX_SIGNATURES = 50;
/** A /Contents gap wider than this (hex digits) is not a CMS: real ones are a few KB to tens of KB. */
const MAX_CONTENTS_HEX = 2 * 1024 * 1024;
/** How far around a /ByteRange its dictionary's other entries are looked for. */
const DICTIONARY_WINDOW = 4096;

/**
 * Every signature dictionary with a filled-in /ByteRange (the definition
 * every route counts by: untrusted/pdf-scan.ts). One whose range does not
 * leave out exactly its /Contents cannot verify: it is reported with its
 * /Contents read from its dictionary, the bytes its range names (within the
 * file) as the covered ones, and `rangeProblem` saying so.
 */
export function findSignatures(bytes: Uint8Array): FoundSignature[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found: FoundSignature[] = [];
  for (const { at, byteRange: range } of signatureDictionaries(bytes)) {
    if (found.length >= MAX_SIGNATURES) break;
    const [a, b, c, d] = range;
    // The gap between the two covered parts is the /Contents hex string, '<' and '>' included.
    const gapIsContents = a === 0 && c > b && c + d <= bytes.length && b >= 1 && buffer[b] === 0x3c && buffer[c - 1] === 0x3e && c - b <= MAX_CONTENTS_HEX;
    const objectStart = buffer.lastIndexOf(' obj', at, 'latin1');
    const header = objectStart < 0 ? null : /(\d+)\s+\d+\s*$/.exec(buffer.toString('latin1', Math.max(0, objectStart - 24), objectStart));
    const endObj = buffer.indexOf('endobj', at, 'latin1');
    let dictionary: string;
    let hex: string;
    if (gapIsContents) {
      const from = Math.max(objectStart < 0 || objectStart > b ? at - DICTIONARY_WINDOW : objectStart, b - DICTIONARY_WINDOW, 0);
      const afterGap = buffer.indexOf('endobj', c, 'latin1');
      dictionary = buffer.toString('latin1', from, b) + buffer.toString('latin1', c, afterGap < 0 ? Math.min(buffer.length, c + DICTIONARY_WINDOW) : Math.min(afterGap, c + DICTIONARY_WINDOW));
      hex = buffer.toString('latin1', b + 1, c - 1);
    } else {
      // The dictionary as written: from its object header to endobj (bounded); its /Contents is the hex string after the key.
      const from = Math.max(objectStart < 0 ? at - DICTIONARY_WINDOW : objectStart, 0);
      const to = endObj < 0 ? Math.min(buffer.length, at + MAX_CONTENTS_HEX) : Math.min(endObj, at + MAX_CONTENTS_HEX);
      const whole = buffer.toString('latin1', from, to);
      const contents = /\/Contents\s*<([0-9a-fA-F\s]*)>/.exec(whole);
      hex = contents?.[1] ?? '';
      dictionary = contents === null ? whole : whole.slice(0, contents.index) + whole.slice(contents.index + contents[0].length);
    }
    found.push({
      object: header === null ? null : Number(header[1]),
      byteRange: range,
      subFilter: /\/SubFilter\s*\/([^\s/<>[\]()]+)/.exec(dictionary)?.[1] ?? null,
      claimedTime: /\/M\s*\(([^)]{0,64})\)/.exec(dictionary)?.[1] ?? null,
      contents: trimDer(Buffer.from(hex.replace(/[^0-9a-fA-F]/g, ''), 'hex')),
      timestamp: /\/Type\s*\/DocTimeStamp/.test(dictionary),
      rangeProblem: gapIsContents
        ? null
        : `its /ByteRange [${range.join(' ')}] does not leave out exactly its /Contents${c + d > bytes.length ? ' and reaches past the end of the file' : ''}, so it cannot verify`,
    });
  }
  return found;
}

/** Checks each found signature against the file; `fieldOf` names its field (from the object view), `changesSince` diffs what later revisions did. */
export async function reportSignatures(
  bytes: Uint8Array,
  signatures: readonly FoundSignature[],
  revisions: readonly Revision[],
  fieldOf: (object: number | null) => string | null,
  changesSince: (signedLength: number) => Promise<readonly SignedChange[]>,
): Promise<SignatureReport[]> {
  const reports: SignatureReport[] = [];
  for (const signature of signatures) {
    const [a, b, c, d] = signature.byteRange;
    const covered = [bytes.subarray(a, a + b), bytes.subarray(c, c + d)];
    const checked = checkCms(signature.contents, covered, signature.subFilter ?? undefined);
    // A range that does not leave out the /Contents covers other bytes than a signer could have signed: it does not verify, whatever the digest says.
    const cms = signature.rangeProblem === null ? checked : { ...checked, digestMatches: false, problem: signature.rangeProblem };
    const signedEnd = c + d;
    const revision = revisions.find((candidate) => candidate.end === signedEnd || trimmedEnd(bytes, candidate.end) === trimmedEnd(bytes, signedEnd));
    const modified = trimmedEnd(bytes, signedEnd) < trimmedEnd(bytes, bytes.length);
    reports.push({
      field: fieldOf(signature.object),
      signer: cms.signer,
      time: cms.signingTime ?? pdfDateIso(signature.claimedTime),
      sub_filter: signature.subFilter,
      byte_range: signature.byteRange,
      revision: revision?.number ?? null,
      covers_whole_file: !modified,
      digest_matches: cms.digestMatches,
      signature_valid: cms.signatureValid,
      modified_after_signing: modified,
      changes_after_signing: modified ? await changesSince(signedEnd) : [],
      problem: cms.problem,
    });
  }
  return reports;
}

/** The offset with trailing end-of-line bytes left out: a range that stops before the final EOL still covers the file. */
function trimmedEnd(bytes: Uint8Array, end: number): number {
  let at = end;
  while (at > 0 && (bytes[at - 1] === 0x0a || bytes[at - 1] === 0x0d || bytes[at - 1] === 0x20)) at--;
  return at;
}

/** The DER element's own length: /Contents is zero-padded to its placeholder's size. */
function trimDer(contents: Buffer): Buffer {
  if (contents.length < 2 || contents[0] !== 0x30) return contents;
  const first = contents[1] as number;
  if (first < 0x80) return contents.subarray(0, 2 + first);
  const octets = first & 0x7f;
  if (octets === 0 || octets > 4 || contents.length < 2 + octets) return contents;
  let length = 0;
  for (let i = 0; i < octets; i++) length = length * 256 + (contents[2 + i] as number);
  return contents.subarray(0, Math.min(contents.length, 2 + octets + length));
}

/** D:YYYYMMDDHHmmSSOHH'mm' (ISO 32000-1 7.9.4) as ISO 8601; null when it is not one. */
export function pdfDateIso(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const match = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(\d{2})?'?(\d{2})?'?)?/.exec(value.trim());
  if (match === null) return null;
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', sign, offsetHours = '00', offsetMinutes = '00'] = match;
  const zone = sign === undefined || sign === 'Z' || sign === 'z' ? 'Z' : `${sign}${offsetHours}:${offsetMinutes}`;
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${zone}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
