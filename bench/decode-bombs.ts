// Decompression bombs (reliability plan case 26) through every route that
// reads a PDF, one request at a time, against the built server as a child
// process: the status and slug each answers, the wall time, and the server
// process's peak RSS during that request (VmHWM from /proc, reset before
// each request by writing 5 to clear_refs; Linux only). A survey, not a
// ratio: `node dist/bench/decode-bombs.js [size-MiB] [route-filter]`.
// Prints a Markdown table; bombs default to 2048 MiB decoded.
import { readFileSync, writeFileSync } from 'node:fs';
import { contentBomb, dctBomb, imageBomb, manyStreamsBomb, objectStreamBomb } from '../test/helpers/bomb-pdfs.js';
import { stopChildrenOnExit } from './child.js';
import { BENCH_KEY } from './documents.js';
import { startPlaten } from './server.js';
import { loadSettings } from './settings.js';

const MiB = 1024 * 1024;
const sizeMiB = Number(process.argv[2] ?? 2048);
const filter = process.argv[3] ?? '';

type Body = (pdf: string) => unknown;
const ROUTES: ReadonlyArray<readonly [string, Body]> = [
  ['/v1/linearize', (pdf) => ({ pdf_data: pdf })],
  ['/v1/linearize?web', (pdf) => ({ pdf_data: pdf, options: { optimize_for_web: true } })],
  ['/v1/parse', (pdf) => ({ pdf_data: pdf, options: { extract_images: true } })],
  ['/v1/extract-text', (pdf) => ({ pdf_data: pdf })],
  ['/v1/compare', (pdf) => ({ pdf_a: pdf, pdf_b: pdf })],
  ['/v1/rag/chunk', (pdf) => ({ pdf_data: pdf })],
  ['/api/v1/extract-text', (pdf) => ({ pdf })],
  ['/api/v1/compare', (pdf) => ({ pdf_a: pdf, pdf_b: pdf })],
  ['/api/v1/merge', (pdf) => ({ documents: [{ pdf }, { pdf }] })],
  ['/api/v1/split', (pdf) => ({ pdf, every: 1 })],
  ['/api/v1/fill-form', (pdf) => ({ pdf, fields: {} })],
  ['/api/v1/optimize', (pdf) => ({ pdf })],
  ['/api/v1/redact', (pdf) => ({ pdf, text: ['Bomb'] })],
  ['/api/v1/check-accessibility', (pdf) => ({ pdf })],
  ['/api/v1/compliance-check', (pdf) => ({ pdf })],
  ['/api/v1/forensic-analyze', (pdf) => ({ pdf })],
  ['/api/v1/ai-certify', (pdf) => ({ pdf })],
];

function peakRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
}

async function main(): Promise<void> {
  stopChildrenOnExit();
  const size = sizeMiB * MiB;
  const bombs: ReadonlyArray<readonly [string, Uint8Array]> = [
    [`content ${sizeMiB} MiB`, contentBomb(size)],
    [`${Math.max(1, sizeMiB / 10)} streams x 10 MiB`, manyStreamsBomb(Math.max(1, Math.round(sizeMiB / 10)), 10 * MiB)],
    ['Flate image 16384 x 16384 RGB', imageBomb(16384, 16384)],
    ['DCT declaring 65500 x 65500', await dctBomb(65500, 65500)],
    [`object stream ${sizeMiB} MiB`, objectStreamBomb(size)],
  ];
  const settings = loadSettings();
  const server = await startPlaten({ ...settings, workers: 1 }, { PLATEN_TIMEOUT_MS: '60000', PLATEN_MAX_BODY_BYTES: String(64 * MiB), ...(process.env.PLATEN_MAX_DECODED_BYTES === undefined ? {} : { PLATEN_MAX_DECODED_BYTES: process.env.PLATEN_MAX_DECODED_BYTES }) });
  const rows: string[] = ['| bomb | route | status | slug | seconds | peak RSS MiB |', '|---|---|---|---|---|---|'];
  try {
    for (const [bomb, pdf] of bombs) {
      const base64 = Buffer.from(pdf).toString('base64');
      for (const [route, body] of ROUTES) {
        if (filter !== '' && !route.includes(filter) && !bomb.includes(filter)) continue;
        writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
        const started = performance.now();
        const response = await fetch(`${server.base}${route.replace('?web', '')}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(body(base64)),
        });
        const text = await response.text();
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const slug = response.ok ? '' : String((JSON.parse(text) as { type?: string }).type ?? '').split('/').pop();
        const row = `| ${bomb} | ${route} | ${response.status} | ${slug} | ${seconds} | ${peakRssMiB(server.pid)} |`;
        rows.push(row);
        process.stderr.write(`${row}\n`);
      }
    }
  } finally {
    await server.stop();
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

await main();
