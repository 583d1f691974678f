// The per-task budget of decoded bytes (reliability plan case 26). A PDF's
// streams are compressed: a 1 KB file can hold a Flate stream that inflates
// to 2 GiB, 1000 streams of 10 MB, or an image that declares 65500 x 65500
// pixels. Every decoder that turns a PDF's bytes into more bytes charges
// what it produces here before it allocates it (pdf.js's and pdf-lib's
// stream decoders: seams/decoder-budget.ts; node:zlib: maxOutputLength =
// the budget's `remaining`), and past the cap the task fails with 422
// `pdf-limits-exceeded` (json-task.ts) instead of growing the worker's
// memory until the 60 s timeout or the kernel ends it. OSS-Fuzz's MuPDF
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
import { workerData } from 'node:worker_threads';
import type { WorkerSettings } from '../protocol.js';

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
  #exceeded = false;

  constructor(readonly cap: number) {}

  /** Counts `bytes` a decoder is about to produce; throws DecodedBytesExceeded past the cap (and on every call after). */
  charge(bytes: number): void {
    if (this.#exceeded) throw new DecodedBytesExceeded(this.cap);
    if (!(bytes > 0)) return;
    this.#spent += bytes;
    if (this.#spent > this.cap) {
      this.#exceeded = true;
      throw new DecodedBytesExceeded(this.cap);
    }
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

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
