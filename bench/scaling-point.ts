// One point of the scaling curve (scaling.ts), in a process of its own so
// that its peak memory is its own: `node scaling-point.js <kind> <pages>`
// prints {ms, peakRssMiB, baseRssMiB} as one JSON line. The task runs once
// on a one-page input first (modules loaded, code warm), then once on the
// measured input. Peak memory is the kernel's high-water mark of the
// resident set (VmHWM), reset after the warm-up by writing 5 to
// /proc/self/clear_refs (proc(5), Linux 4.0+): getrusage's ru_maxrss cannot
// be reset and a spawned process starts with its parent's (the bench's 380
// MiB showed as every point's peak). The base is the resident set after the
// warm-up.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { linearize } from '../workers/linearize/task.js';
import { render } from '../workers/render/task.js';
import { bodyOf, LETTER } from './documents.js';
import { INVOICE_HEADER } from './engine-documents.js';

export type ScalingKind = 'letter' | 'invoice' | 'linearize';

/** The letter repeated on `pages` pages. */
function letter(pages: number): Buffer {
  const operations = Array.from({ length: pages }, (_, i) => [...(i > 0 ? [{ type: 'add_page' }] : []), ...LETTER.operations]).flat();
  return Buffer.from(JSON.stringify({ ...LETTER, operations }));
}

/** The invoice table continued: 20 rows fill an A4 page at 10 pt (engine-documents.ts), so 20 rows a page. */
function invoice(pages: number): Buffer {
  const rows = Array.from({ length: pages * 20 }, (_, i) => [`NWB-${10_000 + i}`, `Deep-groove ball bearing ${6200 + (i % 40)}-2RS, sealed`, String(1 + (i % 12)), `€ ${(12.5 + (i % 17) * 3.25).toFixed(2)}`, `€ ${((1 + (i % 12)) * (12.5 + (i % 17) * 3.25)).toFixed(2)}`]);
  return Buffer.from(
    JSON.stringify({
      page_size: 'A4',
      margin: 50,
      operations: [
        { type: 'set_font', family: 'Helvetica', size: 10 },
        // One table holds at most 100,000 cells: the rows continue in tables of 2,000 (100 pages each).
        ...Array.from({ length: Math.ceil(rows.length / 2000) }, (_, t) => ({
          type: 'add_table',
          columns: [70, '1fr', 35, 65, 70],
          align: ['left', 'left', 'right', 'right', 'right'],
          header: [...INVOICE_HEADER],
          rows: rows.slice(t * 2000, (t + 1) * 2000),
          header_fill: '#e5e7eb',
          zebra: '#f9fafb',
        })),
      ],
    }),
  );
}

async function renderOnce(body: Buffer): Promise<Uint8Array> {
  const outcome = await render({ body: bodyOf(body), length: body.byteLength, options: { maxPages: 100_000 } });
  if (!outcome.ok) throw new Error(`render failed: ${outcome.detail}`);
  return new Uint8Array(outcome.value.body);
}

async function linearizeOnce(pdf: Uint8Array): Promise<void> {
  const body = Buffer.from(JSON.stringify({ pdf_data: Buffer.from(pdf).toString('base64') }));
  const outcome = await linearize({ body: bodyOf(body), length: body.byteLength, options: {} });
  if (!outcome.ok) throw new Error(`linearize failed: ${outcome.detail}`);
}

async function point(kind: ScalingKind, pages: number): Promise<{ ms: number; peakRssMiB: number; baseRssMiB: number }> {
  const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
  let measured: () => Promise<unknown>;
  if (kind === 'linearize') {
    await linearizeOnce(await renderOnce(letter(1)));
    const pdf = await renderOnce(letter(pages));
    measured = () => linearizeOnce(pdf);
  } else {
    const make = kind === 'letter' ? letter : invoice;
    await renderOnce(make(1));
    const body = make(pages);
    measured = () => renderOnce(body);
  }
  writeFileSync('/proc/self/clear_refs', '5');
  const base = process.memoryUsage().rss;
  const started = performance.now();
  await measured();
  const ms = performance.now() - started;
  const hwmKiB = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'))?.[1] ?? 0);
  return { ms: Math.round(ms * 10) / 10, peakRssMiB: mib(hwmKiB * 1024), baseRssMiB: mib(base) };
}

const [kind, pages] = process.argv.slice(2);
point(kind as ScalingKind, Number(pages)).then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
