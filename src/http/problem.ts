// The one problem factory (RFC 9457), keyed by slug like fastify's
// lib/errors.js catalogue: `title` is fixed per slug, `detail` describes this
// occurrence. Code and tests match on the slug, never on text. A test checks
// that every slug here is documented in the README and both OpenAPI contracts.
import type { FieldError } from '../../workers/protocol.js';

export const PROBLEMS = {
  'bad-request': { status: 400, title: 'Bad Request' },
  'invalid-font-data': { status: 400, title: 'Invalid Font Data' },
  'invalid-image-data': { status: 400, title: 'Invalid Image Data' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'capability-denied': { status: 403, title: 'Capability Denied' },
  'not-found': { status: 404, title: 'Not Found' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed' },
  'body-timeout': { status: 408, title: 'Request Timeout' },
  'idempotency-conflict': { status: 409, title: 'Conflict' },
  'session-not-active': { status: 409, title: 'Conflict' },
  'approval-pending': { status: 409, title: 'Conflict' },
  'approval-used': { status: 409, title: 'Conflict' },
  'approval-decided': { status: 409, title: 'Conflict' },
  'payload-too-large': { status: 413, title: 'Payload Too Large' },
  'font-too-large': { status: 413, title: 'Font Too Large' },
  'image-too-large': { status: 413, title: 'Image Too Large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported Media Type' },
  'validation-failed': { status: 422, title: 'Validation Failed' },
  'invalid-pdf-data': { status: 422, title: 'Invalid PDF Data' },
  'pdf-limits-exceeded': { status: 422, title: 'PDF Limits Exceeded' },
  'pdf-password-required': { status: 422, title: 'PDF Password Required' },
  'signing-identity-missing': { status: 422, title: 'Signing Identity Missing' },
  'document-certified': { status: 422, title: 'Document Certified' },
  'xfa-form-unsupported': { status: 422, title: 'XFA Form Unsupported' },
  'document-signed': { status: 422, title: 'Document Signed' },
  'client-rate-exceeded': { status: 429, title: 'Too Many Requests' },
  'rate-limit-exceeded': { status: 429, title: 'Too Many Requests' },
  internal: { status: 500, title: 'Internal Server Error' },
  'embeddings-provider-failed': { status: 502, title: 'Bad Gateway' },
  'vector-store-failed': { status: 502, title: 'Bad Gateway' },
  'worker-pool-exhausted': { status: 503, title: 'Service Unavailable' },
  'shutting-down': { status: 503, title: 'Service Unavailable' },
  'store-unavailable': { status: 503, title: 'Service Unavailable' },
  'upload-budget-exhausted': { status: 503, title: 'Service Unavailable' },
  'request-timeout': { status: 504, title: 'Request Timeout' },
} as const satisfies Record<string, { status: number; title: string }>;

export type Slug = keyof typeof PROBLEMS;

/** Which of the two APIs answers: the accelerator's problems carry `retry_after`. */
export type ApiFamily = 'render' | 'accel';

export interface ProblemInit {
  readonly detail: string;
  readonly errors?: readonly FieldError[];
  /** Seconds; becomes the Retry-After header (and `retry_after` on accelerator routes). */
  readonly retryAfter?: number;
  /** Extra response headers, e.g. Allow on 405 or WWW-Authenticate on 401. */
  readonly headers?: Readonly<Record<string, string>>;
  /** What a library said about the input (a worker's Outcome.cause): logged with the request, never in the body. */
  readonly cause?: string;
}

/** A problem raised on the main thread; the pipeline turns it into a response. */
export class HttpProblem extends Error {
  constructor(
    readonly slug: Slug,
    readonly init: ProblemInit,
  ) {
    super(init.detail);
    this.name = 'HttpProblem';
  }
}

export interface ProblemContext {
  readonly errorsBase: string;
  readonly family: ApiFamily;
  readonly instance: string;
  readonly requestId: string;
}

export function problemBody(slug: Slug, init: ProblemInit, context: ProblemContext): string {
  const { status, title } = PROBLEMS[slug];
  const document: Record<string, unknown> = {
    type: `${context.errorsBase}/${slug}`,
    title,
    status,
    detail: init.detail,
    instance: context.instance,
    request_id: context.requestId,
  };
  // Every 422 of both APIs carries errors[] (render contract, Problem): a
  // source that named no field gets one entry for the body as a whole.
  if (status === 422) document.errors = init.errors !== undefined && init.errors.length > 0 ? init.errors : [{ field: '(body)', code: 'INVALID_VALUE', message: init.detail }];
  if (context.family === 'accel' && init.retryAfter !== undefined) document.retry_after = init.retryAfter;
  return JSON.stringify(document);
}
