// The render API's success envelope (the accelerator's arrives with its
// first JSON route). `data` arrives already serialised (a worker's JSON
// bytes, or a small object stringified here) and is spliced in without being
// parsed again: the main thread never re-encodes a large payload.
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

function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}
