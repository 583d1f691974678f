// How deeply a PDF's bytes nest arrays and dictionaries, counted before
// qpdf reads them (seams/qpdf.ts). qpdf's WebAssembly build keeps its C
// stack, 64 KiB, in linear memory with no guard below it: an object nested
// about 150 deep overflows it. On a fresh instance that trapped, and the task
// said so (422); on an instance that had served a run, the overflow could
// write over qpdf's heap instead and leave the run looping until the
// task's timeout (a catalog nested 300 deep under `qpdf --decrypt`: a 504
// after 60 s in about one run in five under load). So a file nested deeper
// than MAX_NESTING is never handed to qpdf. The native qpdf allows 500;
// real documents stay far below 100.
//
// The scan skips comments, strings and stream data, and starts each object
// at depth 0 again (a damaged object's unclosed array cannot add up across
// objects). Objects inside compressed object streams (PDF 1.5) are scanned
// decoded, by objectStreamsNestDeeperThan: qpdf parses them with the same
// recursion. An object stream is scanned up to its first 32 MiB decoded;
// one that decodes to more (no real file comes near: object streams hold
// a few hundred small objects) is read past there by qpdf unscanned, and
// bounded by PLATEN_TIMEOUT_MS as before. Its filters are those
// decoded-bytes.ts decodes (Flate, LZW, ASCII85, ASCIIHex, RunLength); a
// stream with another, or with /Filter written indirectly, is not scanned,
// nor are an encrypted file's (their data is ciphertext here) or those of a
// file whose cross-reference sections pdf-streams.ts cannot read (it finds
// the streams then, but not their dictionaries, so not which are object
// streams). Without this scan such a file answered 500.

import { decodedPrefix } from './decoded-bytes.js';
import { decodedHere } from './pdf-filters.js';
import { endsName } from './pdf-scan.js';
import { filtersOf, rawStreams } from './pdf-streams.js';

export const MAX_NESTING = 100;

const PERCENT = 0x25;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const BACKSLASH = 0x5c;
const LESS = 0x3c;
const GREATER = 0x3e;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const LOWER_S = 0x73;

/** Decoded bytes of one object stream scanned at most. */
const MAX_SCANNED_OBJECT_STREAM = 32 * 1024 * 1024;

/** Whether any object inside the file's object streams nests arrays and dictionaries more than `limit` deep. */
export async function objectStreamsNestDeeperThan(pdf: Uint8Array, limit = MAX_NESTING): Promise<boolean> {
  for (const stream of rawStreams(pdf)) {
    if (stream.dict?.name('Type') !== 'ObjStm') continue;
    const chain = filtersOf(stream.dict);
    if (chain === undefined || !chain.every((step) => decodedHere(step.name))) continue;
    if (nestsDeeperThan(await decodedPrefix(stream.data(), chain, MAX_SCANNED_OBJECT_STREAM), limit)) return true;
  }
  return false;
}

/** Whether any object in the bytes nests arrays and dictionaries more than `limit` deep. */
export function nestsDeeperThan(bytes: Uint8Array, limit = MAX_NESTING): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = buffer.length;
  let depth = 0;
  for (let i = 0; i < end; i++) {
    switch (buffer[i]) {
      case OPEN_BRACKET:
        if (++depth > limit) return true;
        break;
      case LESS:
        if (buffer[i + 1] === LESS) {
          i++;
          if (++depth > limit) return true;
        } else {
          // A hex string: its digits hold no delimiters.
          const close = buffer.indexOf(GREATER, i + 1);
          i = close < 0 ? end : close;
        }
        break;
      case CLOSE_BRACKET:
        depth = Math.max(0, depth - 1);
        break;
      case GREATER:
        if (buffer[i + 1] === GREATER) {
          i++;
          depth = Math.max(0, depth - 1);
        }
        break;
      case OPEN_PAREN:
        i = literalStringEnd(buffer, i);
        break;
      case PERCENT:
        i = lineEnd(buffer, i);
        break;
      case LOWER_S:
        if (keywordAt(buffer, i, 'stream')) {
          // The data may hold any bytes: a reader goes on at endstream, and so does this scan.
          const after = buffer.indexOf('endstream', i + 6, 'latin1');
          i = after < 0 ? end : after + 8;
        }
        break;
      case LOWER_E:
        if (keywordAt(buffer, i, 'endobj')) depth = 0;
        break;
    }
  }
  return false;
}

/** The index of the parenthesis that closes the literal string opened at `start` (balanced parentheses, backslash escapes). */
function literalStringEnd(buffer: Buffer, start: number): number {
  let open = 0;
  for (let i = start; i < buffer.length; i++) {
    const byte = buffer[i];
    if (byte === BACKSLASH) i++;
    else if (byte === OPEN_PAREN) open++;
    else if (byte === CLOSE_PAREN && --open === 0) return i;
  }
  return buffer.length;
}

function lineEnd(buffer: Buffer, start: number): number {
  for (let i = start; i < buffer.length; i++) if (buffer[i] === 0x0a || buffer[i] === 0x0d) return i;
  return buffer.length;
}

/** `word` at `at`, not inside a longer name or keyword ("endstream" is not "stream"; "/streams" neither). */
function keywordAt(buffer: Buffer, at: number, word: string): boolean {
  if (buffer.toString('latin1', at, at + word.length) !== word) return false;
  return endsName(buffer[at - 1]) && endsName(buffer[at + word.length]);
}
