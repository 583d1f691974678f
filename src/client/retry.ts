// When a failed attempt is tried again, and after how long.
//
// Retried: 429 and 503 (the server says "not now": rate limit, pool
// saturated, breaker open, draining) and transient connection failures
// (refused, reset, a sidecar socket not there yet while the server
// restarts); every accelerator operation is free of side effects, so
// sending one twice is harmless. Not retried: connection failures a retry
// cannot fix (a certificate that does not verify, a proxy refusing the
// tunnel); timeouts (the work still runs on the server, and sending it again
// doubles the load: "avoid retry amplification", SRE book ch. 21); other
// 5xx; every other 4xx (the request must change first).
//
// The wait honours the server's `retry_after` / `Retry-After` (RFC 9110
// section 10.2.3: delay-seconds or an HTTP-date), plus up to 20% jitter so
// that clients told the same delay do not return at the same instant;
// without one it is exponential backoff with "equal jitter" (half fixed,
// half random; AWS Architecture Blog, "Exponential Backoff And Jitter").
// A wait that would end past the call's time budget is not started: the
// error is thrown at once, since the caller could not use the answer.
import { PlatenError, PlatenHttpError, PlatenNetworkError, PlatenProblemError } from './errors.js';

export interface RetryOptions {
  /** Attempts per call, the first included; 1 turns retries off. Default 3. */
  readonly maxAttempts?: number;
  /** No retry starts later than this after the call began. Default 30000. */
  readonly maxElapsedMs?: number;
  /** First backoff step when the server names no delay. Default 200. */
  readonly baseDelayMs?: number;
  /** Cap of a backoff step (a server's Retry-After may be longer and is honoured). Default 5000. */
  readonly maxDelayMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const policy: RetryPolicy = {
    maxAttempts: options.maxAttempts ?? 3,
    maxElapsedMs: options.maxElapsedMs ?? 30_000,
    baseDelayMs: options.baseDelayMs ?? 200,
    maxDelayMs: options.maxDelayMs ?? 5_000,
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) throw new TypeError('retry.maxAttempts must be a whole number of at least 1');
  for (const name of ['maxElapsedMs', 'baseDelayMs', 'maxDelayMs'] as const) {
    if (!Number.isFinite(policy[name]) || policy[name] < 0) throw new TypeError(`retry.${name} must be a number of milliseconds, 0 or more`);
  }
  return Object.freeze(policy);
}

/** System error codes of connection failures that may be gone a moment later. */
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT']);

export function isRetryable(error: PlatenError): boolean {
  if (error instanceof PlatenNetworkError) return error.code !== undefined && TRANSIENT_CODES.has(error.code);
  if (error instanceof PlatenProblemError || error instanceof PlatenHttpError) return error.status === 429 || error.status === 503;
  return false;
}

/** Seconds the server asked to wait, if it did. */
export function serverDelaySeconds(error: PlatenError): number | undefined {
  return error instanceof PlatenProblemError || error instanceof PlatenHttpError ? error.retryAfter : undefined;
}

/** Milliseconds to wait after failed attempt number `attempt` (1-based). */
export function retryDelayMs(policy: RetryPolicy, attempt: number, serverSeconds: number | undefined, random: () => number = Math.random): number {
  if (serverSeconds !== undefined) {
    const asked = serverSeconds * 1000;
    return Math.round(asked * (1 + 0.2 * random()));
  }
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}

/** Retry-After: delay-seconds, or an HTTP-date (seconds from `now`, at least 0). Anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** The later of the body's `retry_after` and the header's delay: both are "at least this long". */
export function laterOf(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
