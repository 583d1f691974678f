// Everything a handler needs from uWS's HttpRequest, read synchronously: the
// HttpRequest is stack-allocated and invalid after the first await.
import type { HttpRequest, HttpResponse } from './uws.js';

/**
 * The request headers the pipeline and routes use; others are not copied.
 * Read into an object literal of fixed shape: filled by name in a loop, the
 * object went through a shape transition per header and every store was a
 * megamorphic keyed store (readRequest was the largest of the pipeline's own
 * functions in a perf profile of the main thread).
 */
function readHeaders(req: HttpRequest) {
  return {
    authorization: req.getHeader('authorization'),
    'content-type': req.getHeader('content-type'),
    'content-length': req.getHeader('content-length'),
    'transfer-encoding': req.getHeader('transfer-encoding'),
    origin: req.getHeader('origin'),
    'x-request-id': req.getHeader('x-request-id'),
    'idempotency-key': req.getHeader('idempotency-key'),
    'x-tenant-id': req.getHeader('x-tenant-id'),
    'approval-id': req.getHeader('approval-id'),
    'access-control-request-method': req.getHeader('access-control-request-method'),
    'access-control-request-headers': req.getHeader('access-control-request-headers'),
  };
}

export type HeaderName = keyof ReturnType<typeof readHeaders>;

export interface IncomingRequest {
  /** Upper-case, as in the route table. */
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<HeaderName, string>>;
  /** Values of the route's `:name` segments, in order. */
  readonly params: readonly string[];
  readonly remoteAddress: string;
  /** More than one Content-Length header (uWS frames by the first; a proxy might use the last). */
  readonly duplicateContentLength: boolean;
  /**
   * How many Idempotency-Key header lines the request has: getHeader returns
   * the first of several, and '' both for an absent and an empty one. Counted
   * only on requests with a body (the only ones that may carry a key); 0 otherwise.
   */
  readonly idempotencyKeys: number;
}

const decoder = new TextDecoder();

/** What a request on the sidecar's Unix socket has for an address: uWS reports none (an empty string). */
export const UNIX_SOCKET_ADDRESS = 'unix';

export function readRequest(req: HttpRequest, res: HttpResponse, paramCount: number, local = false): IncomingRequest {
  const headers = readHeaders(req);
  const params: string[] = [];
  for (let i = 0; i < paramCount; i++) params.push(req.getParameter(i) ?? '');
  let contentLengths = 0;
  let idempotencyKeys = 0;
  // Counting needs a walk over every header, so only requests with a body pay it.
  if (headers['content-length'] !== '' || headers['transfer-encoding'] !== '') {
    req.forEach((name) => {
      if (name === 'content-length') contentLengths++;
      else if (name === 'idempotency-key') idempotencyKeys++;
    });
  }
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    headers,
    params,
    remoteAddress: local ? UNIX_SOCKET_ADDRESS : decoder.decode(res.getRemoteAddressAsText()),
    duplicateContentLength: contentLengths > 1,
    idempotencyKeys,
  };
}
