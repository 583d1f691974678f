// The deployment's OpenAI-compatible embeddings provider (POST <url>/embeddings),
// for the remote models of /v1/rag/embed. The main thread makes these calls:
// they are network waits, and a worker thread must not sit idle through them.
//
// - Batches of PLATEN_EMBEDDINGS_BATCH inputs, one after another (providers
//   limit requests per minute; parallel batches only meet that limit sooner).
// - 429 and 503 are retried after the provider's Retry-After (seconds or an
//   HTTP date, RFC 9110 section 10.2.3), or a short backoff without one, as
//   long as the wait fits in what is left of the timeout.
// - The timeout bounds the whole call, retries included.
// - Every other failure (a status, a connection error, an answer of the
//   wrong shape) is a ProviderFailure: 502 `embeddings-provider-failed`, with
//   the provider's status but never its body (which may echo our key) in
//   `detail`; the body goes to the log, truncated.
// Through the proxy variables the client library honours (hpagent).
import type { RemoteEmbedPlan } from '../../../workers/protocol.js';
import { proxyFor } from '../../client/proxy.js';
import { parseRetryAfter, sleep as abortableSleep } from '../../client/retry.js';
import { Transport, type RawResponse } from '../../client/transport.js';
import type { EmbeddingsProviderConfig } from '../../config.js';
import { ProviderFailure } from './provider-failure.js';

/** Waits when the provider gives no Retry-After; more attempts than these are not made. */
const BACKOFF_MS = [500, 1000, 2000, 4000] as const;

export interface EmbeddedInput {
  readonly id: string;
  readonly vector: readonly number[];
  readonly token_count: number;
}

export class EmbeddingsProvider {
  readonly #config: EmbeddingsProviderConfig;
  readonly #transport: Transport;
  readonly #path: string;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(config: EmbeddingsProviderConfig, sleep: (ms: number, signal: AbortSignal) => Promise<void> = abortableSleep) {
    this.#config = config;
    const base = new URL(config.url.origin);
    this.#transport = new Transport({ baseUrl: base, proxy: proxyFor(base, config.proxyEnv) });
    this.#path = `${config.url.pathname.replace(/\/+$/, '')}/embeddings`;
    this.#sleep = sleep;
  }

  get models(): readonly string[] {
    return this.#config.models;
  }

  /** Vectors for every input of the plan, in its order; rejects with ProviderFailure, or the signal's reason. */
  async embed(plan: RemoteEmbedPlan, clientGone: AbortSignal): Promise<{ dimensions: number; embeddings: EmbeddedInput[] }> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new ProviderFailure(`the embeddings provider did not answer within ${this.#config.timeoutMs} ms (PLATEN_EMBEDDINGS_TIMEOUT_MS)`)), this.#config.timeoutMs);
    const onGone = () => deadline.abort(clientGone.reason);
    clientGone.addEventListener('abort', onGone, { once: true });
    try {
      const embeddings: EmbeddedInput[] = [];
      let dimensions = 0;
      for (let start = 0; start < plan.inputs.length; start += this.#config.batchSize) {
        const batch = plan.inputs.slice(start, start + this.#config.batchSize);
        const vectors = await this.#batch(plan, batch.map((input) => input.text), deadline.signal);
        batch.forEach((input, i) => {
          const vector = plan.normalize ? normalised(vectors[i] as number[]) : (vectors[i] as number[]);
          dimensions ||= vector.length;
          if (vector.length !== dimensions) throw new ProviderFailure('the embeddings provider answered vectors of different lengths in one request');
          embeddings.push({ id: input.id, vector, token_count: input.token_count });
        });
      }
      return { dimensions, embeddings };
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
      clientGone.removeEventListener('abort', onGone);
    }
  }

  close(): void {
    this.#transport.close();
  }

  /** A provider's error body may quote the key it was sent; the log gets it without. */
  #redacted(text: string): string {
    const key = this.#config.apiKey;
    return key === undefined || key === '' ? text : text.split(key).join('[redacted]');
  }

  async #batch(plan: RemoteEmbedPlan, texts: string[], signal: AbortSignal): Promise<number[][]> {
    const body = Buffer.from(JSON.stringify({ model: plan.model, input: texts, encoding_format: 'float', ...(plan.dimensions === null ? {} : { dimensions: plan.dimensions }) }));
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#config.apiKey !== undefined) headers.authorization = `Bearer ${this.#config.apiKey}`;
    for (let attempt = 0; ; attempt++) {
      let response: RawResponse;
      try {
        response = await this.#transport.send({ method: 'POST', path: this.#path, headers, body }, signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        throw new ProviderFailure(`the embeddings provider could not be reached (${(error as NodeJS.ErrnoException).code ?? 'connection error'})`);
      }
      if (response.status === 200) return vectorsOf(response, texts.length, (text) => this.#redacted(text));
      const retryable = response.status === 429 || response.status === 503;
      const backoff = BACKOFF_MS[attempt];
      if (!retryable || backoff === undefined) {
        throw new ProviderFailure(`the embeddings provider answered ${response.status}${retryable ? ` after ${attempt + 1} attempts` : ''}`, this.#redacted(response.body.toString('utf8', 0, 500)));
      }
      const retryAfter = parseRetryAfter(headerOf(response, 'retry-after'));
      await this.#sleep(retryAfter === undefined ? backoff : retryAfter * 1000, signal);
    }
  }
}

function headerOf(response: RawResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The OpenAI embeddings answer: `{data: [{index, embedding: number[]}]}`, one per input. */
function vectorsOf(response: RawResponse, count: number, redacted: (text: string) => string): number[][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new ProviderFailure('the embeddings provider answered 200 with a body that is not JSON', redacted(response.body.toString('utf8', 0, 500)));
  }
  const data = (parsed as { data?: unknown }).data;
  if (!Array.isArray(data) || data.length !== count) throw new ProviderFailure(`the embeddings provider answered ${Array.isArray(data) ? data.length : 'no'} embeddings for ${count} inputs`);
  const vectors: number[][] = new Array(count);
  for (const [position, item] of data.entries()) {
    const { index, embedding } = item as { index?: unknown; embedding?: unknown };
    const at = typeof index === 'number' ? index : position;
    if (!Number.isInteger(at) || at < 0 || at >= count || !Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new ProviderFailure('the embeddings provider answered an embedding that is not a list of numbers');
    }
    // The indexes must be a permutation of 0..count-1. (Array#some skips the holes of `new Array(count)`,
    // so checking for missing ones afterwards let two answers for input 0 through as a 500.)
    if (vectors[at] !== undefined) throw new ProviderFailure(`the embeddings provider answered index ${at} twice and another input not at all`);
    // A vector of zeros has no direction: no cosine can be taken with it, so stored it is never found and as a query it finds nothing.
    if ((embedding as number[]).every((x) => x === 0)) throw new ProviderFailure('the embeddings provider answered a vector of zeros, which has no direction to compare');
    vectors[at] = embedding as number[];
  }
  return vectors;
}

function normalised(vector: readonly number[]): number[] {
  const largest = vector.reduce((most, x) => Math.max(most, Math.abs(x)), 0);
  // Scaled to the largest value first: the direction is the same, and the squares of values like 1e308
  // stay finite instead of making the norm Infinity and every component 0.
  const scaled = vector.map((x) => x / largest);
  const norm = Math.sqrt(scaled.reduce((sum, x) => sum + x * x, 0));
  return scaled.map((x) => x / norm);
}
