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
}

const decoder = new TextDecoder();

export function readRequest(req: HttpRequest, res: HttpResponse, paramCount: number): IncomingRequest {
  const headers = {} as Record<HeaderName, string>;
  for (const name of HEADERS) headers[name] = req.getHeader(name);
  const params: string[] = [];
  for (let i = 0; i < paramCount; i++) params.push(req.getParameter(i) ?? '');
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    headers,
    params,
    remoteAddress: decoder.decode(res.getRemoteAddressAsText()),
  };
}
