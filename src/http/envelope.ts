// Success envelopes of the two APIs. `data` arrives already serialised (a
// worker's JSON bytes, or a small object stringified here) and is spliced in
// without being parsed again: the main thread never re-encodes a large payload.
import { performance } from 'node:perf_hooks';

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

export interface AccelMeta {
  readonly requestId: string;
  readonly receivedAt: number;
  readonly version: string;
  readonly workerId: string;
  readonly cached: boolean;
}

/** { request_id, version, data, meta: { duration_ms, worker_id, cached } } (accelerator spec, conventions). */
export function accelEnvelope(dataJson: string, meta: AccelMeta): string {
  const head = JSON.stringify({ request_id: meta.requestId, version: meta.version });
  const metaJson = JSON.stringify({
    duration_ms: Math.round(performance.now() - meta.receivedAt),
    worker_id: meta.workerId,
    cached: meta.cached,
  });
  return `${head.slice(0, -1)},"data":${dataJson},"meta":${metaJson}}`;
}

function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}
