// What a failed call throws: one base class, one subclass per way a call
// can fail, each narrowing by `instanceof` or by `kind`. A call the caller
// aborted rejects with the caller's AbortSignal reason instead, as fetch does.
import type { ProblemDocument } from './types.js';

export type PlatenErrorKind = 'problem' | 'http' | 'timeout' | 'network' | 'circuit-open' | 'invalid-response';

export abstract class PlatenError extends Error {
  abstract readonly kind: PlatenErrorKind;
  /** Attempts made for this call, retries included (0 when the circuit breaker refused it). */
  attempts = 0;

  constructor(
    message: string,
    /** The X-Request-Id of the call: the server's when it answered, else the one the client sent. */
    readonly requestId: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The server answered with a problem document. Match on `slug`, never on `detail`. */
export class PlatenProblemError extends PlatenError {
  readonly kind = 'problem';
  /** The last segment of the problem's `type`, e.g. `rate-limit-exceeded`. */
  readonly slug: string;
  readonly status: number;
  readonly detail: string;
  /** Seconds the server asked to wait (`retry_after`, or the Retry-After header), when it did. */
  readonly retryAfter: number | undefined;

  constructor(
    readonly problem: ProblemDocument,
    status: number,
    requestId: string | undefined,
    retryAfter: number | undefined,
  ) {
    const slug = problem.type.slice(problem.type.lastIndexOf('/') + 1);
    super(`${status} ${slug}: ${problem.detail}`, problem.request_id ?? requestId);
    this.slug = slug;
    this.status = status;
    this.detail = problem.detail;
    this.retryAfter = retryAfter;
  }
}

/** An error status without a problem document: usually a proxy or load balancer answering for the server. */
export class PlatenHttpError extends PlatenError {
  readonly kind = 'http';

  constructor(
    readonly status: number,
    readonly contentType: string | undefined,
    requestId: string | undefined,
    readonly retryAfter: number | undefined,
  ) {
    super(`HTTP ${status} without a problem document (${contentType ?? 'no content type'})`, requestId);
  }
}

/** An attempt took longer than its timeout; the request was abandoned. */
export class PlatenTimeoutError extends PlatenError {
  readonly kind = 'timeout';

  constructor(
    readonly timeoutMs: number,
    requestId: string | undefined,
  ) {
    super(`no answer within ${timeoutMs} ms`, requestId);
  }
}

/** The connection failed: refused, reset, closed early, proxy refused the tunnel, ... */
export class PlatenNetworkError extends PlatenError {
  readonly kind = 'network';
  /** The system error code when there is one (ECONNREFUSED, ECONNRESET, ENOENT for a missing socket, ...). */
  readonly code: string | undefined;

  constructor(cause: unknown, requestId: string | undefined) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    super(`connection failed: ${code ?? (cause instanceof Error ? cause.message : String(cause))}`, requestId, { cause });
    this.code = code;
  }
}

/** The client's circuit breaker is open: the call was not sent. */
export class PlatenCircuitOpenError extends PlatenError {
  readonly kind = 'circuit-open';

  constructor(
    /** Milliseconds until a probe call is let through (0 while a probe is in flight). */
    readonly retryInMs: number,
  ) {
    super(
      retryInMs > 0 ? `the circuit breaker is open after repeated failures; a probe is let through in ${retryInMs} ms` : 'the circuit breaker is half-open and its probe call is in flight',
      undefined,
    );
  }
}

/** A success status whose body is not what the route's contract says. */
export class PlatenResponseError extends PlatenError {
  readonly kind = 'invalid-response';

  constructor(
    readonly status: number,
    why: string,
    requestId: string | undefined,
  ) {
    super(`unexpected ${status} response: ${why}`, requestId);
  }
}
