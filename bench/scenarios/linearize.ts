// Linearization: POST /v1/linearize of a 50-page PDF at saturation (qpdf
// compiled to WebAssembly, in the worker threads), beside the Debian
// `qpdf --linearize` CLI spawned once per request, as many at a time as the
// server has workers. The PDF is rendered at bench start by the server's own
// render route: the business letter of the render scenarios, fifty times.
//
// The CLI baseline has no HTTP, no JSON and no base64 in it, and reads its
// input from a file written once: it is the CLI's best case, so the ratio
// understates what the server saves over a service that spawns qpdf.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { measure, type LoadFigures } from '../autocannon.js';
import type { ChildServer } from '../child.js';
import { LETTER } from '../documents.js';
import { warmThenLoop } from '../loop.js';
import type { Settings } from '../settings.js';
import { ratio, type Throughput } from '../stats.js';
import { RENDER_HEADERS, RENDER_PATH, saturation } from './render.js';

const run = promisify(execFile);

export const LINEARIZE_PATH = '/v1/linearize';
export const LINEARIZE_PAGES = 50;

export interface LinearizeOnServer {
  /** The rendered input, handed to the CLI baseline after the server has stopped. */
  readonly pdf: Buffer;
  readonly server: LoadFigures;
}

export interface LinearizeResult {
  readonly pages: number;
  readonly pdfBytes: number;
  readonly linearizedBytes: number;
  readonly connections: number;
  readonly server: LoadFigures;
  /** `qpdf --linearize` spawned per request, `workers` at a time. */
  readonly cli: Throughput;
  readonly cliConcurrency: number;
  /** Server linearizations/s ÷ CLI linearizations/s. */
  readonly serverToCli: number | undefined;
}

async function fiftyPagePdf(base: string): Promise<Buffer> {
  const operations = Array.from({ length: LINEARIZE_PAGES }, (_, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), ...LETTER.operations]).flat();
  const response = await fetch(base + RENDER_PATH, { method: 'POST', headers: RENDER_HEADERS, body: JSON.stringify({ ...LETTER, operations }) });
  const pdf = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`linearize: rendering the input failed: ${response.status} ${pdf.toString('utf8').slice(0, 500)}`);
  return pdf;
}

interface LinearizeAnswer {
  readonly data?: { readonly linearized?: boolean; readonly page_count?: number; readonly linearized_size_bytes?: number };
}

/** Fails the bench before measuring unless the server linearizes the input into a 50-page linearized PDF. */
async function checkLinearize(base: string, body: Buffer): Promise<number> {
  const response = await fetch(base + LINEARIZE_PATH, { method: 'POST', headers: RENDER_HEADERS, body });
  const text = await response.text();
  const answer = (response.status === 200 ? JSON.parse(text) : {}) as LinearizeAnswer;
  if (answer.data?.linearized !== true || answer.data.page_count !== LINEARIZE_PAGES) {
    throw new Error(`linearize check failed: ${response.status} ${text.slice(0, 500)}`);
  }
  return answer.data.linearized_size_bytes ?? 0;
}

export async function linearizeOnServer(settings: Settings, server: ChildServer): Promise<LinearizeOnServer & { linearizedBytes: number }> {
  const pdf = await fiftyPagePdf(server.base);
  const body = Buffer.from(JSON.stringify({ pdf_data: pdf.toString('base64') }), 'utf8');
  const linearizedBytes = await checkLinearize(server.base, body);
  const figures = await measure(
    { url: server.base + LINEARIZE_PATH, method: 'POST', headers: { ...RENDER_HEADERS }, body, connections: saturation(settings) },
    settings.warmupSeconds,
    settings.seconds,
  );
  return { pdf, server: figures, linearizedBytes };
}

/** Run while the Platen server is stopped. */
export async function linearizeBaseline(settings: Settings, onServer: LinearizeOnServer & { linearizedBytes: number }): Promise<LinearizeResult> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-bench-qpdf-'));
  try {
    const input = join(dir, 'in.pdf');
    await writeFile(input, onServer.pdf);
    let next = 0;
    const cli = await warmThenLoop(settings.warmupSeconds, settings.seconds, settings.workers, async () => {
      const output = join(dir, `out-${next++}.pdf`);
      await run('qpdf', ['--linearize', input, output]);
      // The server answers with the bytes; the CLI's caller reads them too.
      await readFile(output);
      await rm(output);
    });
    return {
      pages: LINEARIZE_PAGES,
      pdfBytes: onServer.pdf.byteLength,
      linearizedBytes: onServer.linearizedBytes,
      connections: saturation(settings),
      server: onServer.server,
      cli,
      cliConcurrency: settings.workers,
      serverToCli: ratio(onServer.server.requestsPerSecond, cli.requestsPerSecond),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
