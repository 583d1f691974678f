// An encrypted PDF in the clear for the count in front of qpdf
// (qpdf-decodes.ts), which reads a file's streams from its bytes and so
// cannot read an encrypted one: merge, split and optimize take encrypted
// files (with their password, or an empty user password), and before this
// a deflate bomb in one (768 MiB of image samples in a 3.6 KB AES-256 file)
// cost 7-15 s of qpdf's CPU and came back 200, or 504 when larger.
//
// qpdf decrypts it first, decoding as little as it can:
// `qpdf --decrypt --stream-data=preserve` writes every stream's data as it
// is stored, only decrypted (40 ms for that bomb, all of it qpdf's AES-256
// password rounds), so the count then reads the file in the clear as it
// reads any other. What that pass still decodes is what qpdf always
// decodes: the object streams, to find the objects in them, and the
// catalog's XMP, which it writes uncompressed into an unencrypted file
// (measured: 64 MiB of XMP came out as 67 MB). Those are encrypted too, and
// a bomb there is not in the pass's output: qpdf writes an object stream
// anew from the objects it holds, so 768 MiB of padding after them inflated
// for 2.5 s and ran the WebAssembly heap out (exit 2), and 64 MiB took
// 0.4 s for a 686-byte result. So they are counted before the pass: when
// the most they could decode to fits in what the budget has left (an
// ordinary file's object streams), it is set aside and nothing more is done;
// otherwise each is decrypted here with the file's key, which qpdf gives
// (`--show-encryption-key`; untrusted/pdf-crypt.ts has the object keys and
// the ciphers), and counted exactly.
//
// Not chosen: decrypting every stream here and never running the pass.
// qpdf would still decrypt the file after the count, and a stream this code
// decrypted wrong (a crypt filter it reads differently) would be counted as
// nothing; the pass is qpdf's own decryption, and the code here only ever
// decrypts what that pass decodes, and only for files whose object streams
// are large.
//
// When qpdf cannot open the file (no password, a wrong one, a damaged
// cross-reference table), nothing more is counted and the caller goes on as
// before: its own open of the file, pdf-lib's or qpdf's with the same
// password, fails the same way, with the same problem document, before
// anything is decoded. When qpdf opens it but cannot write it whole (the
// pass stops on an object the pages never use; a catalog nested too deep
// was one, until nesting past 100 stopped reaching qpdf at all: qpdf.ts), the caller's
// `--pages` run may still copy its pages, so every stream any qpdf run
// could decode is counted here instead, decrypted with qpdf's key: more
// than that run decodes, never less.
import { chargeFilterChain, currentDecodedBudget, type FilterStep } from '../untrusted/decoded-bytes.js';
import { streamDecryptor, type ObjectRef, type StreamMethod } from '../untrusted/pdf-crypt.js';
import { filtersOf, isEncrypted, rawStreams, type RawStream } from '../untrusted/pdf-streams.js';
import { QpdfTrap, runQpdf, type QpdfCall, type QpdfRun } from './qpdf.js';
import { FOR_XMP, decodedChain, flateLayers, worstCase, type QpdfDecodes } from './qpdf-decodes.js';

const INPUT = '/in.pdf';
const OUTPUT = '/out.pdf';

/**
 * `pdf` decrypted by qpdf, its streams' data as stored, after charging what
 * that decryption decodes to the task's budget (DecodedBytesExceeded past
 * the cap, naming `field`); undefined when `pdf` is not encrypted, or qpdf
 * cannot decrypt it with `password` (the caller's own open then says why).
 */
export async function decryptedForCount(pdf: Uint8Array, password: string | undefined, field: string): Promise<Uint8Array | undefined> {
  if (!isEncrypted(pdf)) return undefined;
  const passwordArgs = password === undefined ? [] : [`--password=${password}`];
  if (!(await chargeDecryption(pdf, passwordArgs, field, passChain))) return undefined;
  const run = await qpdf({ args: ['--decrypt', ...passwordArgs, '--stream-data=preserve', INPUT, OUTPUT], inputs: new Map([[INPUT, pdf]]), outputs: [OUTPUT] });
  const output = run?.outputs.get(OUTPUT);
  if (run !== undefined && succeeded(run) && output !== undefined) return output;
  // qpdf's message for a password that opens nothing is "invalid password" (optimize.ts matches it the same way).
  if (run === undefined || !/password/i.test(run.stderr)) await chargeDecryption(pdf, passwordArgs, field, anyRunChain);
  return undefined;
}

/** 0 success, 3 success with warnings (a damaged but readable file). */
const succeeded = (run: QpdfRun) => run.exitCode === 0 || run.exitCode === 3;

/** A run, or undefined when the input stops qpdf (QpdfTrap): the caller's own qpdf run then stops on it too and says so. */
async function qpdf(call: QpdfCall): Promise<QpdfRun | undefined> {
  try {
    return await runQpdf(call);
  } catch (error) {
    if (error instanceof QpdfTrap) return undefined;
    throw error;
  }
}

/** A stream a run decodes, and its filters (undefined: its dictionary was not read here). */
interface Decoded {
  readonly stream: RawStream;
  readonly chain: FilterStep[] | undefined;
}

/** The filters a run undoes on a stream (undefined: its dictionary was not read here), or 'copied'. */
type ChainOf = (stream: RawStream) => FilterStep[] | undefined | 'copied';

/**
 * Charges what `chainOf` says qpdf decodes of the encrypted file; false
 * when that needs the key and qpdf cannot open the file to give it (a run
 * would fail as well).
 */
async function chargeDecryption(pdf: Uint8Array, passwordArgs: readonly string[], field: string, chainOf: ChainOf): Promise<boolean> {
  const budget = currentDecodedBudget();
  const decoded: Decoded[] = [];
  let worst = 0;
  for (const stream of rawStreams(pdf)) {
    const chain = chainOf(stream);
    if (chain === 'copied') continue;
    decoded.push({ stream, chain });
    // A cross-reference stream is never encrypted (ISO 32000-2 7.6.2), and was inflated to find the objects.
    worst += stream.decoded ?? (chain !== undefined && stream.lengthKnown ? worstCase(stream.data().byteLength, chain) : Infinity);
  }
  if (budget.reserve(worst)) return true;
  const decrypt = await decryptor(pdf, passwordArgs);
  if (decrypt === undefined) return false;
  for (const { stream, chain } of decoded) {
    if (stream.decoded !== undefined) {
      budget.charge(stream.decoded, field);
      continue;
    }
    // Both readings: a stream may be stored in the clear in an encrypted
    // file (XMP under /EncryptMetadata false, a /Crypt /Identity filter),
    // and the wrong one fails at once, at its zlib header.
    const stored = stream.data();
    const clear = decrypt(stream.ref, stored);
    for (const data of clear === undefined || clear === stored ? [stored] : [stored, clear]) {
      const steps = chain ?? flateLayers(data);
      if (steps !== undefined) await chargeFilterChain(data, steps, field, budget);
    }
  }
  return true;
}

/**
 * The filters the pass undoes on this stream: an object stream's, XMP's
 * (qpdf-decodes.ts says why), undefined when its dictionary was not read
 * here (it may be either), 'copied' for every other stream. A /Crypt
 * filter is the security handler's, not a decoder.
 */
function passChain(stream: RawStream): FilterStep[] | undefined | 'copied' {
  const { dict } = stream;
  const filters = dict === undefined ? undefined : filtersOf(dict)?.filter((f) => f.name !== 'Crypt');
  if (dict === undefined || filters === undefined) return undefined;
  const type = dict.name('Type');
  const read = type === 'ObjStm' || type === 'XRef' || (type === 'Metadata' && dict.name('Subtype') === 'XML');
  return read && filters.length > 0 && filters.every((f) => FOR_XMP.has(f.name)) ? filters : 'copied';
}

/** Every run at its widest: every Flate stream recompressed, page contents parsed. */
const EVERY_RUN: QpdfDecodes = { writes: 'recompressed', contents: true };

/** What any qpdf run could decode of the stream (qpdf-decodes.ts), its data read in the clear when its dictionary was not read here. */
function anyRunChain(stream: RawStream): FilterStep[] | undefined | 'copied' {
  if (stream.dict === undefined || filtersOf(stream.dict) === undefined) return undefined;
  return decodedChain(stream, EVERY_RUN) ?? 'copied';
}

/** The file's stream decryption, with the key qpdf derives from the password; undefined when qpdf does not open the file. */
async function decryptor(pdf: Uint8Array, passwordArgs: readonly string[]): Promise<((ref: ObjectRef | undefined, data: Uint8Array) => Uint8Array | undefined) | undefined> {
  const run = await qpdf({ args: ['--show-encryption', '--show-encryption-key', ...passwordArgs, INPUT], inputs: new Map([[INPUT, pdf]]) });
  const key = run === undefined ? undefined : /^Encryption key = ([0-9a-f]+)$/m.exec(run.stdout)?.[1];
  if (run === undefined || !succeeded(run) || key === undefined) return undefined;
  const method = /^stream encryption method: (\w+)$/m.exec(run.stdout)?.[1] ?? 'RC4';
  return streamDecryptor(Buffer.from(key, 'hex'), (['RC4', 'AESv2', 'AESv3', 'none'].includes(method) ? method : 'RC4') as StreamMethod);
}
