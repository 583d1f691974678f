// Reads a request body into one ArrayBuffer of its own, so that it can be
// transferred to a worker without a copy (a pooled Buffer would be copied
// silently by Node 20). Every non-final chunk must be copied because uWS
// neuters it after the callback returns; we copy into one preallocated
// buffer instead of Buffer.concat per chunk (fastify rawBody, hono
// body-limit). The cap is enforced on the declared length before anything is
// read, and on the bytes received as they arrive.
import { createHash } from 'node:crypto';
import type { CallerSignal } from '../pool/pool.js';
import type { HttpResponse } from './uws.js';

export interface Body {
  /** Holds the body in bytes [0, length); may be larger than the body. */
  readonly buffer: ArrayBuffer;
  readonly length: number;
  /**
   * SHA-256 (hex) of the bytes, when the route asked for it (Idempotency-Key
   * fingerprints). Hashed chunk by chunk as the bytes arrive: ~1.5 GB/s
   * here, about 0.3 ms per 512 KiB chunk, so the event loop is never held
   * for long even by a 64 MiB body.
   */
  readonly sha256?: string;
}

export type BodyFailure = 'too-large' | 'length-mismatch' | 'aborted' | 'over-budget' | 'timeout' | 'too-slow';

export class BodyError extends Error {
  constructor(
    readonly failure: BodyFailure,
    /** Bytes of the body that had arrived when it failed. */
    readonly received = 0,
    /** Milliseconds from the start of the read to the failure ('too-slow' only). */
    readonly elapsedMs = 0,
  ) {
    super(failure);
    this.name = 'BodyError';
  }
}

/** Listener options shared by every read. */
const ONCE = Object.freeze({ once: true });

/** One function for every read, not a bound performance.now per request. */
const monotonicNow = (): number => performance.now();

/** Chunked bodies start here and double; 64 KiB covers most JSON requests in one allocation. */
const INITIAL_CAPACITY = 64 * 1024;

/**
 * Must be called synchronously in the uWS handler (before any await), or
 * uWS drops the data that arrives meanwhile. `declared` is the parsed
 * Content-Length, or undefined for a chunked body.
 */
export interface ReadOptions {
  /** Hash the bytes (Body.sha256). */
  readonly fingerprint?: boolean;
  /**
   * Asked for every byte a chunked body allocates (a declared body's length
   * is held by the caller before reading); when it refuses, the body fails
   * with 'over-budget'.
   */
  readonly hold?: (bytes: number) => boolean;
  /**
   * Called when the client has sent the whole body, also after the read
   * failed: an answer written after that need not linger for the rest.
   */
  readonly onEnd?: () => void;
  /**
   * Longest silence allowed before the body is complete (PLATEN_BODY_TIMEOUT_MS):
   * from the call, then from each chunk. Past it the read fails with
   * 'timeout'. Without it, a body shorter than its Content-Length or a
   * chunked body without its last chunk waited for uWS's idle timeout
   * (10 s on a 4 s tick: 8 to 12 s measured) and was closed unanswered.
   */
  readonly idleMs?: number;
  /**
   * The slowest average a body may arrive at (PLATEN_BODY_MIN_RATE), the
   * whole-body deadline: past `graceMs` from the call, the body must have
   * reached `bytesPerSecond` on average, so the time it may take grows with
   * what it has sent (Apache's mod_reqtimeout `body=...,MinRate=...`). The
   * idle timeout alone let a client trickling a byte every few seconds hold
   * its connection and its share of the body budget for as long as it liked.
   * Checked on each chunk: a client that stops sending is the idle timeout's.
   */
  readonly minRate?: MinRate;
}

export interface MinRate {
  readonly bytesPerSecond: number;
  readonly graceMs: number;
  /** Milliseconds on a monotonic clock; tests pass their own. */
  readonly now?: () => number;
}

export function readBody(res: HttpResponse, declared: number | undefined, limit: number, signal: CallerSignal, options: ReadOptions = {}): Promise<Body> {
  const { fingerprint = false, hold = () => true, onEnd, idleMs, minRate } = options;
  const hash = fingerprint ? createHash('sha256') : undefined;
  // A declared body gets its whole buffer at once: its length is already held
  // in the body budget, which bounds what idle connections declaring large
  // bodies can reserve (before the budget, 50 of them declaring 64 MiB took
  // 3.2 GB of address space, so buffers grew by doubling instead). Doubling
  // a 62 MB body left 63 MB of discarded buffers behind it for the GC, which
  // does not run while the process is idle (README, "Memory").
  const initial = declared ?? Math.min(INITIAL_CAPACITY, limit);
  if (declared === undefined && !hold(initial)) return Promise.reject(new BodyError('over-budget'));
  return new Promise((resolve, reject) => {
    let buffer = declared === undefined ? new ArrayBuffer(initial) : unzeroed(initial);
    let bytes = new Uint8Array(buffer);
    let length = 0;
    let settled = false;
    const idle = idleMs === undefined ? undefined : setTimeout(() => fail('timeout'), idleMs);
    const fail = (failure: BodyFailure, elapsedMs = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      reject(new BodyError(failure, length, elapsedMs));
    };
    signal.addEventListener('abort', () => fail('aborted'), ONCE);
    const ceiling = declared ?? limit;
    const now = minRate?.now ?? monotonicNow;
    const started = minRate === undefined ? 0 : now();
    const msPerByte = minRate === undefined ? 0 : 1000 / minRate.bytesPerSecond;
    res.onData((chunk, isLast) => {
      if (isLast) onEnd?.();
      if (settled) return;
      idle?.refresh();
      if (minRate !== undefined && !isLast) {
        const elapsedMs = now() - started;
        if (elapsedMs > minRate.graceMs + (length + chunk.byteLength) * msPerByte) return fail('too-slow', elapsedMs);
      }
      // An exception here (an allocation failure) must not escape into uWS.
      try {
        const size = chunk.byteLength;
        if (length + size > limit) return fail('too-large');
        if (length + size > ceiling) return fail('length-mismatch');
        if (length + size > bytes.byteLength) {
          const capacity = Math.min(ceiling, Math.max(bytes.byteLength * 2, length + size));
          if (declared === undefined && !hold(capacity - bytes.byteLength)) return fail('over-budget');
          const grown = new ArrayBuffer(capacity);
          const view = new Uint8Array(grown);
          view.set(bytes.subarray(0, length));
          buffer = grown;
          bytes = view;
        }
        const view = new Uint8Array(chunk);
        bytes.set(view, length);
        hash?.update(view);
        length += size;
        if (!isLast) return;
        if (declared !== undefined && length !== declared) return fail('length-mismatch');
        settled = true;
        clearTimeout(idle);
        resolve({ buffer, length, sha256: hash?.digest('hex') });
      } catch {
        fail('too-large');
      }
    });
  });
}

/**
 * A buffer of its own (transferable: not from Buffer's pool) whose bytes
 * are not zeroed first, for a body of declared length: it is resolved only
 * once every byte has been written (a shorter or longer body fails and the
 * buffer is dropped), so the zeroing would be overwritten whole. It was
 * glibc's calloc memset: 38 of 547 cpu-clock samples of the main thread
 * (7%, ~0.15 ms a request) under 2.3 MB image-compress bodies (perf record
 * -e cpu-clock). A chunked body's buffer grows past its length, and that
 * tail, which a worker is handed too, stays zeroed (new ArrayBuffer).
 */
function unzeroed(bytes: number): ArrayBuffer {
  return Buffer.allocUnsafeSlow(bytes).buffer as ArrayBuffer;
}

/** Parses a Content-Length header: undefined when absent, NaN when malformed. */
export function declaredLength(header: string): number | undefined {
  if (header === '') return undefined;
  // Any run of digits: a length too long to represent exactly is still over every cap (413, not 400).
  return /^\d+$/.test(header) ? Number(header) : Number.NaN;
}
