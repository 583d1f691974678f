// The typed accelerator client. One call is: circuit breaker → attempt
// (per-attempt timeout) → answer or typed error → retry when the error is
// retryable and the budget allows. Every attempt of a call carries the same
// X-Request-Id, so the server's log lines of a retried call tie together.
import { randomUUID } from 'node:crypto';
import { CircuitBreaker, type BreakerOptions, type BreakerState, type Permit } from './breaker.js';
import {
  ShapeError,
  decodeChunk,
  decodeClusterStatus,
  decodeCompare,
  decodeEmbed,
  decodeIndex,
  decodeSearch,
  decodeCompressImage,
  decodeEnvelope,
  decodeExtractText,
  decodeFontList,
  decodeRegisteredFont,
  decodeRenderEnvelope,
  decodeHealth,
  decodeLinearize,
  decodeParse,
  decodeSubsetFont,
  encodeCompare,
  encodeChunk,
  encodeIndex,
  encodeCompressImage,
  encodeExtractText,
  encodeLinearize,
  encodeParse,
  encodeSubsetFont,
} from './codec.js';
import {
  PlatenCircuitOpenError,
  PlatenError,
  PlatenHttpError,
  PlatenNetworkError,
  PlatenProblemError,
  PlatenResponseError,
  PlatenTimeoutError,
} from './errors.js';
import { proxyFor, type ProxyEnv } from './proxy.js';
import { isRetryable, laterOf, parseRetryAfter, retryDelayMs, retryPolicy, serverDelaySeconds, sleep, type RetryOptions, type RetryPolicy } from './retry.js';
import { Transport, type OutgoingRequest, type RawResponse } from './transport.js';
import type {
  FontList,
  FontMediaType,
  RegisteredFont,
  RenderResponse,
  AccelResponse,
  ChunkRequest,
  ChunkResult,
  ClusterStatus,
  CompressImageRequest,
  CompressImageResult,
  CompareRequest,
  CompareResult,
  EmbedRequest,
  EmbedResult,
  IndexRequest,
  IndexResult,
  SearchRequest,
  SearchResult,
  ExtractTextRequest,
  ExtractTextResult,
  HealthRecord,
  LinearizeRequest,
  LinearizeResult,
  ParseRequest,
  ParseResult,
  ProblemDocument,
  SubsetFontRequest,
  SubsetFontResult,
} from './types.js';

export interface PlatenClientOptions {
  /** Remote mode: the server's base URL (`http://127.0.0.1:8080`, `https://pdf.example.com/accel`). */
  readonly baseUrl?: string | URL;
  /** Sidecar mode: the server's PLATEN_SOCKET path. Exactly one of baseUrl and socketPath. */
  readonly socketPath?: string;
  /** An API key (`svc_live_...`), sent as `Authorization: Bearer`. */
  readonly apiKey: string;
  /** Sent as X-Tenant-ID on every call (required in high-control mode). */
  readonly tenant?: string;
  /** Per-attempt timeout. Default 65000: past the server's default processing timeout (60 s), so its 504 arrives first. */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  /** The client's circuit breaker; `false` turns it off. */
  readonly breaker?: BreakerOptions | false;
  /**
   * Remote mode: `'env'` (default) reads HTTPS_PROXY / HTTP_PROXY / NO_PROXY;
   * a URL forces that proxy; `false` connects directly.
   */
  readonly proxy?: 'env' | string | URL | false;
  /** Where `proxy: 'env'` reads the variables. Default: this process's environment. */
  readonly env?: ProxyEnv;
  /** Extra trusted certificates (PEM) for an https base URL. */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>;
}

export interface CallOptions {
  /** Aborts the call, retries and waits included; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** X-Request-Id for this call (default: a new UUID, the same on every attempt). */
  readonly requestId?: string;
  /** Overrides the client's tenant for this call. */
  readonly tenant?: string;
  /** Overrides the client's per-attempt timeout for this call. */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 65_000;

export class PlatenClient {
  readonly #transport: Transport;
  readonly #authorization: string;
  readonly #tenant: string | undefined;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #breaker: CircuitBreaker | undefined;

  constructor(options: PlatenClientOptions) {
    if ((options.baseUrl === undefined) === (options.socketPath === undefined)) {
      throw new TypeError('give exactly one of baseUrl (remote mode) and socketPath (sidecar mode)');
    }
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required');
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    positive(this.#timeoutMs, 'timeoutMs');
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#tenant = options.tenant;
    this.#retry = retryPolicy(options.retry);
    this.#breaker = options.breaker === false ? undefined : new CircuitBreaker(options.breaker);
    if (options.socketPath !== undefined) {
      this.#transport = new Transport({ socketPath: options.socketPath });
      return;
    }
    const baseUrl = new URL(options.baseUrl as string | URL);
    if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') throw new TypeError('baseUrl must be an http:// or https:// URL');
    const proxy =
      options.proxy === false ? undefined : options.proxy === undefined || options.proxy === 'env' ? proxyFor(baseUrl, options.env) : new URL(options.proxy);
    this.#transport = new Transport({ baseUrl, proxy, ca: options.ca });
  }

  /** `closed`, `open` or `half_open`; `closed` when the breaker is turned off. */
  get circuitState(): BreakerState {
    return this.#breaker?.state ?? 'closed';
  }

  /**
   * GET /health. Not gated by the circuit breaker (and not counted by it):
   * it is how a caller sees whether the service is back.
   */
  async health(options: CallOptions = {}): Promise<HealthRecord> {
    return decoded(await this.#call({ method: 'GET', path: '/health' }, options, false), decodeHealth);
  }

  /** POST /v1/font/subset (core). */
  async subsetFont(request: SubsetFontRequest, options: CallOptions = {}): Promise<AccelResponse<SubsetFontResult>> {
    const body = await this.#call(post('/v1/font/subset', encodeSubsetFont(request)), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeSubsetFont));
  }

  /** POST /v1/image/compress (core). */
  async compressImage(request: CompressImageRequest, options: CallOptions = {}): Promise<AccelResponse<CompressImageResult>> {
    const body = await this.#call(post('/v1/image/compress', encodeCompressImage(request)), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeCompressImage));
  }

  /** POST /v1/linearize (core). */
  async linearize(request: LinearizeRequest, options: CallOptions = {}): Promise<AccelResponse<LinearizeResult>> {
    const body = await this.#call(post('/v1/linearize', encodeLinearize(request)), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeLinearize));
  }

  /** POST /v1/parse (pro and above): metadata, text blocks, tables, form fields, images, bookmarks. */
  async parse(request: ParseRequest, options: CallOptions = {}): Promise<AccelResponse<ParseResult>> {
    const body = await this.#call(post('/v1/parse', encodeParse(request)), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeParse));
  }

  /** POST /v1/extract-text (pro and above): text with font, colour, position and reading order. */
  async extractText(request: ExtractTextRequest, options: CallOptions = {}): Promise<AccelResponse<ExtractTextResult>> {
    const body = await this.#call(post('/v1/extract-text', encodeExtractText(request)), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeExtractText));
  }

  /** POST /v1/compare (pro and above): words, formatting, images and pages changed from `pdf_a` to `pdf_b`. */
  async compare(request: CompareRequest, options: CallOptions = {}): Promise<AccelResponse<CompareResult>> {
    const body = await this.#call(post('/v1/compare', encodeCompare(request)), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeCompare));
  }

  /** POST /v1/rag/chunk (enterprise): a PDF in chunks for retrieval. */
  async chunk(request: ChunkRequest, options: CallOptions = {}): Promise<AccelResponse<ChunkResult>> {
    const body = await this.#call(post('/v1/rag/chunk', encodeChunk(request)), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeChunk));
  }

  /** POST /v1/rag/embed (enterprise): vectors of the built-in model or the deployment's remote ones. */
  async embed(request: EmbedRequest, options: CallOptions = {}): Promise<AccelResponse<EmbedResult>> {
    const body = await this.#call(post('/v1/rag/embed', request), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeEmbed));
  }

  /** POST /v1/rag/index (enterprise): chunk, embed and store a PDF in the caller's collection. */
  async index(request: IndexRequest, options: CallOptions = {}): Promise<AccelResponse<IndexResult>> {
    const body = await this.#call(post('/v1/rag/index', encodeIndex(request)), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeIndex));
  }

  /** POST /v1/rag/search (enterprise): the caller's chunks nearest to a query. */
  async search(request: SearchRequest, options: CallOptions = {}): Promise<AccelResponse<SearchResult>> {
    const body = await this.#call(post('/v1/rag/search', request), options);
    return decoded(body, (value) => decodeEnvelope(value, decodeSearch));
  }

  /** GET /v1/cluster/status (enterprise). */
  async clusterStatus(options: CallOptions = {}): Promise<AccelResponse<ClusterStatus>> {
    return decoded(await this.#call({ method: 'GET', path: '/v1/cluster/status' }, options), (value) => decodeEnvelope(value, decodeClusterStatus));
  }

  /**
   * PUT /api/v1/fonts/{family} (render API, every tier): registers a font
   * file once (TrueType, OpenType, WOFF, WOFF2), so that `set_font {family}`
   * uses it with no data. Registering a family again replaces its font.
   */
  async registerFont(family: string, font: Uint8Array, mediaType: FontMediaType = 'application/octet-stream', options: CallOptions = {}): Promise<RenderResponse<RegisteredFont>> {
    const body = Buffer.from(font.buffer, font.byteOffset, font.byteLength);
    const answer = await this.#call({ method: 'PUT', path: fontPath(family), body, contentType: mediaType }, options);
    return decoded(answer, (value) => decodeRenderEnvelope(value, decodeRegisteredFont));
  }

  /** GET /api/v1/fonts: this client's registered fonts and how much of its limits they use. */
  async listFonts(options: CallOptions = {}): Promise<RenderResponse<FontList>> {
    return decoded(await this.#call({ method: 'GET', path: '/api/v1/fonts' }, options), (value) => decodeRenderEnvelope(value, decodeFontList));
  }

  /** DELETE /api/v1/fonts/{family}. A family the client does not have is a PlatenProblemError `not-found`. */
  async deleteFont(family: string, options: CallOptions = {}): Promise<void> {
    await this.#call({ method: 'DELETE', path: fontPath(family) }, options);
  }

  /**
   * Any other route (parse, compare, extract-text, rag/*): the parsed JSON
   * answer, unchecked, with the same auth, retries, timeout and breaker.
   */
  async request<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
    if (!path.startsWith('/')) throw new TypeError('path must start with /');
    const sent = method === 'POST' ? post(path, body ?? {}) : { method, path };
    return (await this.#call(sent, options)) as T;
  }

  /** Closes kept-alive connections. Calls made afterwards open new ones. */
  close(): void {
    this.#transport.close();
  }

  async #call(sent: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; body?: Buffer; contentType?: string }, options: CallOptions, gated = true): Promise<unknown> {
    const requestId = options.requestId ?? randomUUID();
    const tenant = options.tenant ?? this.#tenant;
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    positive(timeoutMs, 'timeoutMs');
    const request: OutgoingRequest = {
      method: sent.method,
      path: sent.path,
      ...(sent.body === undefined ? {} : { body: sent.body }),
      headers: {
        accept: 'application/json',
        authorization: this.#authorization,
        'x-request-id': requestId,
        ...(tenant === undefined ? {} : { 'x-tenant-id': tenant }),
        ...(sent.body === undefined ? {} : { 'content-type': sent.contentType ?? 'application/json' }),
      },
    };
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#attempt(request, requestId, timeoutMs, options.signal, gated);
      } catch (error) {
        if (!(error instanceof PlatenError)) throw error;
        error.attempts = error instanceof PlatenCircuitOpenError ? attempt - 1 : attempt;
        if (error instanceof PlatenCircuitOpenError || !isRetryable(error) || attempt >= this.#retry.maxAttempts) throw error;
        const delay = retryDelayMs(this.#retry, attempt, serverDelaySeconds(error));
        if (performance.now() - started + delay > this.#retry.maxElapsedMs) throw error;
        await sleep(delay, options.signal);
      }
    }
  }

  async #attempt(request: OutgoingRequest, requestId: string, timeoutMs: number, callerSignal: AbortSignal | undefined, gated: boolean): Promise<unknown> {
    callerSignal?.throwIfAborted();
    const permit: Permit | undefined = gated ? this.#breaker?.admit() : undefined;
    if (gated && this.#breaker !== undefined && permit === undefined) throw new PlatenCircuitOpenError(this.#breaker.retryInMs);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal === undefined ? timeout : AbortSignal.any([callerSignal, timeout]);
    let response: RawResponse;
    try {
      response = await this.#transport.send(request, signal);
    } catch (error) {
      if (callerSignal?.aborted) {
        permit?.released();
        throw callerSignal.reason;
      }
      permit?.failed();
      if (timeout.aborted) throw new PlatenTimeoutError(timeoutMs, requestId);
      throw new PlatenNetworkError(error, requestId);
    }
    if (response.status >= 500) permit?.failed();
    else permit?.succeeded();
    return interpret(response, requestId);
  }
}

/** The answer's JSON on 2xx; otherwise the typed error it stands for. */
function interpret(response: RawResponse, sentId: string): unknown {
  const { status, headers, body } = response;
  const requestId = single(headers['x-request-id']) ?? sentId;
  const contentType = single(headers['content-type']);
  const json = parseJson(body);
  if (status === 204) return undefined;
  if (status >= 200 && status < 300) {
    if (json === undefined || !/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType ?? '')) {
      throw new PlatenResponseError(status, `expected JSON, got ${contentType ?? 'no content type'}`, requestId);
    }
    return json;
  }
  const headerDelay = parseRetryAfter(single(headers['retry-after']));
  if (isProblem(json)) {
    const bodyDelay = typeof json.retry_after === 'number' && json.retry_after >= 0 ? json.retry_after : undefined;
    throw new PlatenProblemError(json, status, requestId, laterOf(bodyDelay, headerDelay));
  }
  throw new PlatenHttpError(status, contentType, requestId, headerDelay);
}

function decoded<T>(body: unknown, decode: (body: unknown) => T): T {
  try {
    return decode(body);
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    const requestId = typeof (body as { request_id?: unknown })?.request_id === 'string' ? (body as { request_id: string }).request_id : undefined;
    throw new PlatenResponseError(200, error.message, requestId);
  }
}

/** The path of a registered family: percent-encoded, as a path segment must be. */
function fontPath(family: string): string {
  if (typeof family !== 'string' || family === '') throw new TypeError('family must be a non-empty string');
  return `/api/v1/fonts/${encodeURIComponent(family)}`;
}

function post(path: string, body: unknown): { method: 'POST'; path: string; body: Buffer } {
  return { method: 'POST', path, body: Buffer.from(JSON.stringify(body)) };
}

function parseJson(body: Buffer): unknown {
  if (body.byteLength === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function isProblem(value: unknown): value is ProblemDocument {
  const doc = value as Partial<ProblemDocument> | undefined;
  return typeof doc === 'object' && doc !== null && typeof doc.type === 'string' && typeof doc.detail === 'string' && typeof doc.status === 'number';
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function positive(value: number, name: string): void {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number of milliseconds`);
}
