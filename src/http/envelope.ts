// The success envelopes of the two APIs. `data` arrives already serialised
// (a worker's JSON bytes, or a small object stringified here) and is spliced
// in without being parsed again: the main thread never re-encodes a large
// payload.
import { performance } from 'node:perf_hooks';

const encoder = new TextEncoder();
const RENDER_HEAD = encoder.encode('{"data":');

export interface RenderMeta {
  readonly requestId: string;
  readonly receivedAt: number;
  readonly apiVersion: string;
}

/** { data, meta: { request_id, timestamp, duration_ms, api_version } } (render spec, ResponseMeta). */
export function renderEnvelope(dataJson: string, meta: RenderMeta): string {
  const metaJson = JSON.stringify({
    request_id: meta.requestId,
    timestamp: new Date().toISOString(),
    duration_ms: roundMs(performance.now() - meta.receivedAt),
    api_version: meta.apiVersion,
  });
  return `{"data":${dataJson},"meta":${metaJson}}`;
}

/**
 * The same envelope around `data` that a worker serialised to bytes (a
 * capability operation's result, possibly megabytes of extracted text):
 * copied once into the response, never decoded or parsed.
 */
export function renderEnvelopeBytes(data: Uint8Array, meta: RenderMeta): Uint8Array {
  const tail = encoder.encode(
    `,"meta":${JSON.stringify({
      request_id: meta.requestId,
      timestamp: new Date().toISOString(),
      duration_ms: roundMs(performance.now() - meta.receivedAt),
      api_version: meta.apiVersion,
    })}}`,
  );
  const out = new Uint8Array(RENDER_HEAD.length + data.length + tail.length);
  out.set(RENDER_HEAD, 0);
  out.set(data, RENDER_HEAD.length);
  out.set(tail, RENDER_HEAD.length + data.length);
  return out;
}

function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}

export interface AccelMeta {
  readonly requestId: string;
  readonly receivedAt: number;
  readonly apiVersion: string;
  /** Thread id of the worker that did the work; undefined when no worker did (cluster status). */
  readonly workerId: number | undefined;
  readonly cached: boolean;
}


/**
 * { request_id, version, data, meta: { duration_ms, worker_id, cached } }
 * (accelerator spec, section 2). `data` is JSON bytes: copied once into the
 * response, never decoded (a subset font or a compressed image is a large
 * base64 string).
 */
export function accelEnvelope(data: Uint8Array, meta: AccelMeta): Uint8Array {
  const head = encoder.encode(`{"request_id":${JSON.stringify(meta.requestId)},"version":${JSON.stringify(meta.apiVersion)},"data":`);
  const tail = encoder.encode(
    `,"meta":${JSON.stringify({
      duration_ms: Math.round(performance.now() - meta.receivedAt),
      worker_id: meta.workerId === undefined ? 'main' : `worker-${meta.workerId}`,
      cached: meta.cached,
    })}}`,
  );
  const out = new Uint8Array(head.length + data.length + tail.length);
  out.set(head, 0);
  out.set(data, head.length);
  out.set(tail, head.length + data.length);
  return out;
}

/** An accelerator answer made on the main thread, without a worker: a small object. */
export function accelJson(data: unknown, meta: Omit<AccelMeta, 'workerId' | 'cached'>): Uint8Array {
  return accelEnvelope(encoder.encode(JSON.stringify(data)), { ...meta, workerId: undefined, cached: false });
}
