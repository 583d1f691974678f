// Small request helpers for black-box tests.
import assert from 'node:assert/strict';
import { qpdfCheck } from './pdf-tools.js';
import { KEYS, bearer } from './keys.js';

export function postJson(base: string, path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(KEYS.enterprise), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
}

/** A render request of one add_text operation per text. */
export function textDocument(...texts: string[]): { operations: Array<Record<string, unknown>> } {
  return { operations: texts.map((text) => ({ type: 'add_text', text })) };
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  request_id?: string;
  errors?: Array<{ field: string; code: string; message: string }>;
  retry_after?: number;
}

/** Reads a problem document, asserting its media type; returns it with the slug split off. */
export async function readProblem(response: Response): Promise<Problem & { slug: string }> {
  const type = response.headers.get('content-type');
  if (type !== 'application/problem+json') throw new Error(`expected application/problem+json, got ${type} (status ${response.status})`);
  const problem = (await response.json()) as Problem;
  return { ...problem, slug: problem.type.slice(problem.type.lastIndexOf('/') + 1) };
}

/** Asserts a 422 invalid-pdf-data on the `pdf` member (INVALID_PDF) whose detail matches `detail`. */
export async function assertInvalidPdf(response: Response, detail: RegExp): Promise<void> {
  assert.equal(response.status, 422);
  const problem = await readProblem(response);
  assert.equal(problem.slug, 'invalid-pdf-data');
  assert.match(problem.detail ?? '', detail);
  assert.deepEqual(problem.errors?.map((e) => [e.field, e.code]), [['pdf', 'INVALID_PDF']]);
}

/** Renders a request that must succeed; returns the PDF, checked by qpdf, or fails with the server's answer. */
export async function renderPdf(base: string, body: unknown): Promise<Uint8Array> {
  const response = await postJson(base, '/api/v1/render', body);
  if (response.status !== 200) throw new Error(`render failed: ${response.status} ${await response.text()}`);
  if (response.headers.get('content-type') !== 'application/pdf') throw new Error(`render answered ${response.headers.get('content-type')}`);
  const pdf = new Uint8Array(await response.arrayBuffer());
  await qpdfCheck(pdf);
  return pdf;
}
