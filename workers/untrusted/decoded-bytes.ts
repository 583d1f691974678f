// The per-task budget of decoded bytes (reliability plan case 26). A PDF's
// streams are compressed: a 1 KB file can hold a Flate stream that inflates
// to 2 GiB, 1000 streams of 10 MB, or an image that declares 65500 x 65500
// pixels. Every decoder that turns a PDF's bytes into more bytes charges
// what it produces here before it allocates it (pdf.js's and pdf-lib's
// stream decoders: seams/decoder-budget.ts; node:zlib: maxOutputLength =
// the budget's `remaining`; what qpdf will decode, counted before it runs:
// chargeFilterChain below, for seams/qpdf-decodes.ts), and past the cap the
// task fails with 422 `pdf-limits-exceeded` (json-task.ts) instead of
// growing the worker's memory (or, for qpdf, its CPU) until the 60 s
// timeout or the kernel ends it. OSS-Fuzz's MuPDF
// harness caps a document's allocations at 1 GiB (google/oss-fuzz,
// projects/mupdf/pdf_fuzzer.cc); qpdf's fuzzer caps Flate output (qpdf
// fuzz/qpdf_fuzzer.cc, Pl_Flate::memory_limit).
//
// One task runs at a time in a worker thread (concurrentTasksPerWorker: 1).
// json-task.ts opens a budget when a task that reads a request's files
// starts, and it stays the thread's current budget until the next such task
// opens its own: pdf.js decodes a page's images after it has handed back
// the operator list, so decoding can outlive its task. Each decoder is bound
// to the budget current when it was made (seams/decoder-budget.ts), so work
// left over from one task is charged to that task, never to the next one.
// Once spent a budget stays spent: the libraries catch a decoder's error
// and go on (pdf.js skips an image it cannot decode and keeps reading the
// page), so every later charge throws at once, and the task checks
// `exceeded` when it ends, whatever the library made of the error. Tasks
// that open no budget (render, fonts, images) decode no PDF stream; before
// the first budget a thread's decoders are charged to one without a task.
import { Duplex, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { workerData } from 'node:worker_threads';
import { constants, createInflate, inflateSync } from 'node:zlib';
import type { WorkerSettings } from '../protocol.js';
import { chunkDecoder, type ChunkDecoder } from './pdf-filters.js';

/** PLATEN_MAX_DECODED_BYTES's default (src/config-env.ts says the same). */
export const DEFAULT_MAX_DECODED_BYTES = 1024 * 1024 * 1024;

/** The cap this thread was started with (Piscina's workerData), or the default (tasks run without a pool, in tests). */
function configuredCap(): number {
  const settings = workerData as Partial<WorkerSettings> | null | undefined;
  const cap = settings?.maxDecodedBytes;
  return typeof cap === 'number' && Number.isSafeInteger(cap) && cap > 0 ? cap : DEFAULT_MAX_DECODED_BYTES;
}

/** What a decoder throws past the cap; the libraries may swallow it, the budget remembers. */
export class DecodedBytesExceeded extends Error {
  constructor(readonly cap: number) {
    super(`decoded bytes past the cap of ${cap}`);
    this.name = 'DecodedBytesExceeded';
  }
}

const threadCap = configuredCap();

/** One task's decoded bytes. */
export class DecodedBudget {
  #spent = 0;
  #reserved = 0;
  #exceeded = false;
  #source: string | undefined;

  constructor(readonly cap: number) {}

  /**
   * Counts `bytes` a decoder is about to produce; throws DecodedBytesExceeded
   * past the cap (and on every call after). `source`: the request member the
   * bytes came from, when the caller knows it (`documents[2].pdf`).
   */
  charge(bytes: number, source?: string): void {
    if (this.#exceeded) throw new DecodedBytesExceeded(this.cap);
    if (!(bytes > 0)) return;
    this.#spent += bytes;
    if (this.#spent > this.cap) {
      this.#exceeded = true;
      this.#source = source;
      throw new DecodedBytesExceeded(this.cap);
    }
  }

  /**
   * Sets aside `bytes` that a library will decode at most, when they fit
   * beside what was charged and set aside before; false when they do not
   * (then the caller counts exactly what it decodes). For a file whose worst
   * case cannot reach the cap, so decoding it ahead to count it would buy
   * nothing (seams/qpdf-decodes.ts). What is set aside is not charged: the
   * decoders that charge as they go are limited by what they decode.
   */
  reserve(bytes: number): boolean {
    if (this.#exceeded || this.#spent + this.#reserved + bytes > this.cap) return false;
    this.#reserved += bytes;
    return true;
  }

  /** The member whose bytes went past the cap, when the decoder that did knew it. */
  get source(): string | undefined {
    return this.#source;
  }

  /** What a decoder may still produce (node:zlib's maxOutputLength), at least 1. */
  get remaining(): number {
    return Math.max(1, this.cap - this.#spent);
  }

  get exceeded(): boolean {
    return this.#exceeded;
  }

  /** The failure's detail: names the limit and the variable that sets it. */
  get detail(): string {
    return (
      `decodes to more than ${this.cap} bytes (${formatBytes(this.cap)}), the limit on what one request's PDF streams and images may decode to ` +
      '(PLATEN_MAX_DECODED_BYTES): a decompression bomb, or a document larger than this server is set to read'
    );
  }
}

let current = new DecodedBudget(threadCap);

/** A new task's budget, current from now on. `limit` replaces the thread's cap (unit tests). */
export function openDecodedBudget(limit: number = threadCap): DecodedBudget {
  current = new DecodedBudget(limit);
  return current;
}

/** The budget a decoder made now is charged to. */
export function currentDecodedBudget(): DecodedBudget {
  return current;
}

/** One filter of a stream's chain, outermost first: its name without the slash, and LZW's EarlyChange. */
export interface FilterStep {
  readonly name: string;
  readonly earlyChange?: number;
}

const isFlate = (step: FilterStep) => step.name === 'FlateDecode' || step.name === 'Fl';

/**
 * Past this a chain is decoded a chunk at a time instead of at once: the
 * streams of ordinary files decode to less (the 50-page letter's largest to
 * 6 KB; the optimize bench's 800 x 800 photo-like PNG, 1.6 MB stored, to
 * 1.9 MB), and one call of inflateSync is cheaper: 7-8 ms of CPU for that
 * PNG, against 13-41 ms through the pipeline. A bomb costs at most this
 * much decoded twice.
 */
const AT_ONCE_BYTES = 16 * 1024 * 1024;

/** Decoded bytes node:zlib hands back at a time in the chunked path: 64 KiB chunks cost 4 times the CPU (385 against 87 ms for 512 MiB). */
const ZLIB_CHUNK = 1024 * 1024;

/**
 * Decodes `data` through `chain` (Flate with node:zlib, the others with
 * pdf-filters.ts), charging every filter's output to `budget`, and keeps
 * none of it: how a task counts what a library it cannot interrupt (qpdf)
 * will decode before handing it the file. Throws DecodedBytesExceeded past
 * the cap; data a filter cannot decode ends the count where the filter
 * stops, as it ends the library's decoding. A filter not decoded here
 * (DCT, JPX, ...) must not be in `chain`.
 */
export async function chargeFilterChain(data: Uint8Array, chain: readonly FilterStep[], source: string, budget: DecodedBudget = current): Promise<void> {
  if (chain.length === 0) return;
  if (chain.every(isFlate) && chargedAtOnce(data, chain.length, source, budget)) return;
  await decodeChain(data, chain, (chunk) => budget.charge(chunk.byteLength, source));
}

/**
 * Up to `maxBytes` of what `data` decodes to through `chain` (its first
 * bytes, when it decodes to more), decoded with the same filters as
 * chargeFilterChain; data a filter cannot decode ends where the filter
 * stops. For a scan of what a library will read decoded (untrusted/pdf-nesting.ts).
 */
export async function decodedPrefix(data: Uint8Array, chain: readonly FilterStep[], maxBytes: number): Promise<Uint8Array> {
  if (chain.length === 0) return data.subarray(0, maxBytes);
  if (chain.every(isFlate)) {
    let layer = data;
    try {
      for (let i = 0; i < chain.length; i++) layer = inflateSync(layer, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: maxBytes });
      return layer;
    } catch {
      // Larger than maxBytes, or damaged: a chunk at a time below keeps what decodes.
    }
  }
  const chunks: Uint8Array[] = [];
  let kept = 0;
  try {
    await decodeChain(data, chain, (chunk, final) => {
      if (!final) return;
      chunks.push(chunk.subarray(0, maxBytes - kept));
      kept += chunk.byteLength;
      if (kept >= maxBytes) throw new EnoughDecoded();
    });
  } catch (error) {
    if (!(error instanceof EnoughDecoded)) throw error;
  }
  return Buffer.concat(chunks);
}

class EnoughDecoded extends Error {}

/**
 * Decodes `data` through `chain` (Flate with node:zlib, the others with
 * pdf-filters.ts) a chunk at a time, handing every filter's output to
 * `observe` (`final` for the last filter's) and keeping none of it. What
 * `observe` throws ends the decoding and is thrown; data a filter cannot
 * decode ends the decoding where the filter stops, quietly.
 */
async function decodeChain(data: Uint8Array, chain: readonly FilterStep[], observe: (chunk: Uint8Array, final: boolean) => void): Promise<void> {
  let stopped: { error: unknown } | undefined;
  const stages: Duplex[] = [];
  chain.forEach((step, index) => {
    const decoder = isFlate(step) ? undefined : chunkDecoder(step.name, step.earlyChange);
    stages.push(decoder === undefined ? createInflate({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: ZLIB_CHUNK }) : Duplex.from(decoding(decoder)));
    const final = index === chain.length - 1;
    stages.push(
      Duplex.from(async function* (decoded: AsyncIterable<Uint8Array>) {
        for await (const chunk of decoded) {
          try {
            observe(chunk, final);
          } catch (error) {
            stopped = { error };
            throw error;
          }
          yield chunk;
        }
      } as AsyncGeneratorFunction),
    );
  });
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  try {
    await pipeline(Readable.from([data]), ...(stages as [Duplex]), discard);
  } catch (error) {
    if (stopped !== undefined) throw stopped.error;
    // Damaged data: the decoding ends where the filter does.
  }
}

/** Flate layers inflated in one call each while they fit AT_ONCE_BYTES; false when one does not (then chunked). */
function chargedAtOnce(data: Uint8Array, layers: number, source: string, budget: DecodedBudget): boolean {
  const sizes: number[] = [];
  let layer = data;
  for (let i = 0; i < layers; i++) {
    const limit = Math.min(AT_ONCE_BYTES, budget.remaining + 1);
    try {
      layer = inflateSync(layer, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: limit });
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') break;
      if (limit === AT_ONCE_BYTES) return false;
      // Past what the budget has left: charged, it throws.
      sizes.push(limit);
      break;
    }
    sizes.push(layer.byteLength);
  }
  for (const size of sizes) budget.charge(size, source);
  return true;
}

function decoding(decoder: ChunkDecoder): AsyncGeneratorFunction {
  return async function* (encoded: AsyncIterable<Uint8Array>) {
    for await (const chunk of encoded) yield* decoder.push(chunk);
    yield* decoder.end();
  } as AsyncGeneratorFunction;
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
