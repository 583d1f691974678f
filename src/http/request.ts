// Everything a handler needs from uWS's HttpRequest, read synchronously: the
// HttpRequest is stack-allocated and invalid after the first await.
import type { HttpRequest, HttpResponse } from './uws.js';

/** The request headers the pipeline and routes use; others are not copied. */
const HEADERS = [
  'authorization',
  'content-type',
  'content-length',
  'transfer-encoding',
  'origin',
  'x-request-id',
  'idempotency-key',
  'x-tenant-id',
  'approval-id',
  'access-control-request-method',
  'access-control-request-headers',
] as const;

export type HeaderName = (typeof HEADERS)[number];

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
  const headers = {} as Record<HeaderName, string>;
  for (const name of HEADERS) headers[name] = req.getHeader(name);
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
