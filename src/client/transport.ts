// One HTTP exchange with the accelerator, in either mode: the sidecar's Unix
// socket (node:http `socketPath`), or a base URL over HTTP/HTTPS, directly
// or through a proxy. Connections are kept alive (one agent per client).
//
// Through a proxy, an https target is tunnelled with CONNECT by hpagent's
// HttpsProxyAgent (TLS runs end to end, the proxy sees only the host name);
// an http target is sent to the proxy in absolute form (RFC 9112 section
// 3.2.2), the way curl does it, rather than tunnelled: hpagent's
// HttpProxyAgent would CONNECT to a plain-HTTP port, which common proxies
// refuse by default (squid's `http_access deny CONNECT !SSL_ports`).
import http from 'node:http';
import https from 'node:https';
import { HttpsProxyAgent } from 'hpagent';

export interface TransportOptions {
  /** Remote mode: `http://host:port` or `https://host/prefix`. */
  readonly baseUrl?: URL;
  /** Sidecar mode: the server's PLATEN_SOCKET. */
  readonly socketPath?: string;
  /** The proxy for baseUrl, when one applies (proxy.ts decides). */
  readonly proxy?: URL;
  /** Extra trusted certificates (PEM) for an https base URL, e.g. a private CA. */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>;
}

export interface OutgoingRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Starts with `/`; appended to the base URL's path. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

type Target = {
  readonly request: typeof http.request;
  /** Options of every request but the path and headers. */
  readonly options: http.RequestOptions;
  readonly path: (path: string) => string;
  readonly headers: Readonly<Record<string, string>>;
  readonly agent: http.Agent;
};

export class Transport {
  readonly #target: Target;

  constructor(options: TransportOptions) {
    this.#target = target(options);
  }

  /** Sends one request; rejects with the signal's reason when it aborts, or with the connection's error. */
  send(request: OutgoingRequest, signal: AbortSignal): Promise<RawResponse> {
    const target = this.#target;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const headers: Record<string, string> = { ...request.headers, ...target.headers };
      if (request.body !== undefined) headers['content-length'] = String(request.body.byteLength);
      const req = target.request({ ...target.options, agent: target.agent, method: request.method, path: target.path(request.path), headers });
      let settled = false;
      const settle = (error: unknown, response?: RawResponse) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (response === undefined) reject(error);
        else resolve(response);
      };
      const onAbort = () => {
        req.destroy();
        settle(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      req.once('error', (error) => settle(error));
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('error', (error) => settle(error));
        res.once('end', () => settle(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.once('close', () => {
          if (!res.complete) settle(Object.assign(new Error('the connection closed before the response was complete'), { code: 'ECONNRESET' }));
        });
      });
      req.end(request.body);
    });
  }

  /** Closes the kept-alive connections; requests in flight are cut off. */
  close(): void {
    this.#target.agent.destroy();
  }
}

function target(options: TransportOptions): Target {
  if (options.socketPath !== undefined) {
    return {
      request: http.request,
      options: { socketPath: options.socketPath },
      path: (path) => path,
      // A Host header is required (RFC 9112 section 3.2); a socket has no host name.
      headers: { host: 'localhost' },
      agent: new http.Agent({ keepAlive: true }),
    };
  }
  const base = options.baseUrl;
  if (base === undefined) throw new TypeError('either baseUrl or socketPath is required');
  const prefix = base.pathname.replace(/\/+$/, '');
  const secure = base.protocol === 'https:';
  const ca = options.ca === undefined ? undefined : [options.ca].flat();
  const proxy = options.proxy;

  if (proxy === undefined) {
    return {
      request: secure ? https.request : http.request,
      options: { protocol: base.protocol, hostname: unbracket(base.hostname), port: base.port || undefined },
      path: (path) => prefix + path,
      headers: {},
      agent: secure ? new https.Agent({ keepAlive: true, ca }) : new http.Agent({ keepAlive: true }),
    };
  }
  if (secure) {
    return {
      request: https.request,
      options: { protocol: 'https:', hostname: unbracket(base.hostname), port: base.port || undefined },
      path: (path) => prefix + path,
      headers: {},
      agent: new HttpsProxyAgent({ proxy, keepAlive: true, ca }),
    };
  }
  const throughTls = proxy.protocol === 'https:';
  const authorization: Record<string, string> =
    proxy.username !== '' || proxy.password !== ''
      ? { 'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}` }
      : {};
  return {
    request: throughTls ? https.request : http.request,
    options: { protocol: proxy.protocol, hostname: unbracket(proxy.hostname), port: proxy.port || undefined },
    path: (path) => `${base.origin}${prefix}${path}`,
    headers: { host: base.host, ...authorization },
    agent: throughTls ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true }),
  };
}

/** URL.hostname keeps an IPv6 literal's brackets; node:http wants the bare address. */
function unbracket(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}
