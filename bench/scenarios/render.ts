// Scenario 2: POST /api/v1/render of the one-page letter at saturation, the
// rate jobs and overload are read against; its ratios to a bare pool and to
// one thread in-process are measured in interleaved rounds (pairs.ts).
import { measure, type LoadFigures, type Target } from '../autocannon.js';
import type { ChildServer } from '../child.js';
import { BENCH_KEY, LETTER, LETTER_JSON } from '../documents.js';
import type { Settings } from '../settings.js';

export const RENDER_PATH = '/api/v1/render';

export const RENDER_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  authorization: `Bearer ${BENCH_KEY}`,
};

/**
 * Two requests per thread: one running, one waiting, so a thread never idles
 * between completions; far below threads + maxQueue, so nothing is refused.
 */
export function saturation(settings: Settings): number {
  return settings.workers * 2;
}

export function renderTarget(base: string, connections: number): Target {
  return { url: base + RENDER_PATH, method: 'POST', headers: { ...RENDER_HEADERS }, body: LETTER_JSON, connections };
}

/** Fails the bench before measuring if the server does not render the letter. */
export async function checkRender(base: string): Promise<void> {
  const response = await fetch(base + RENDER_PATH, { method: 'POST', headers: RENDER_HEADERS, body: LETTER_JSON });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const magic = Buffer.from(bytes.subarray(0, 5)).toString('latin1');
  if (response.status !== 200 || magic !== '%PDF-') {
    throw new Error(`render check failed: ${response.status} ${response.headers.get('content-type')}: ${Buffer.from(bytes).toString('utf8').slice(0, 500)}`);
  }
}

export async function renderOnServer(settings: Settings, server: ChildServer): Promise<LoadFigures> {
  await checkRender(server.base);
  return measure(renderTarget(server.base, saturation(settings)), settings.warmupSeconds, settings.seconds);
}

/** The letter repeated on `pages` pages, rendered by the running server: the input of the PDF-reading and document benches. */
export async function renderPages(base: string, pages: number): Promise<Buffer> {
  const operations = Array.from({ length: pages }, (_, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), ...LETTER.operations]).flat();
  const response = await fetch(base + RENDER_PATH, { method: 'POST', headers: RENDER_HEADERS, body: JSON.stringify({ ...LETTER, operations }) });
  const pdf = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`rendering the input failed: ${response.status}`);
  return pdf;
}
