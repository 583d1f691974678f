// Every PDF of ../shared/corpus/ (files no one here wrote) through every
// route that takes a PDF, against the built server on a port of its own,
// one worker: what a user sending those files would get. Per route it
// counts the answers by status and slug, and checks what a 200 carries:
// a written PDF passes `qpdf --check` with the page count it should have
// (merge: both documents; split: the one page asked for; the others: the
// input's), a signed one has our signature valid by `pdfsig`, a linearized
// one passes `qpdf --check-linearization` (a signed one comes back
// unchanged, as linearize promises). A 5xx, an answer slower than
// SLOW_MS, or an output that fails its check is listed by file. Merge and
// compare take each file with the next one.
//
// Not part of `make test` (the corpus is not shipped): `make corpus-routes`
// (about 8 minutes on 2 cores). CORPUS_STEP=n takes every n-th file.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnServer, stopChildrenOnExit } from './child.js';
import { BENCH_KEY, BENCH_KEY_ENTRY } from './documents.js';

const run = promisify(execFile);
const SLOW_MS = 15_000;
const SIGNER = 'Platen corpus signer';

type Check = (output: Uint8Array, pages: { input: number; other: number }) => Promise<string | undefined>;

interface RouteCase {
  readonly path: string;
  readonly body: (pdf: string, other: string) => unknown;
  /** What a 200 must carry; undefined when its JSON is the answer (validated by the contract tests, not here). */
  readonly check?: Check;
}

const pdfWith = (pages: (counts: { input: number; other: number }) => number): Check => async (output, counts) => {
  const problem = await qpdfCheck(output);
  if (problem !== undefined) return problem;
  const expected = pages(counts);
  const found = await pageCount(output);
  return found === expected ? undefined : `${found} pages, expected ${expected}`;
};
const samePages = pdfWith(({ input }) => input);

const ROUTES: readonly RouteCase[] = [
  { path: '/api/v1/extract-text', body: (pdf) => ({ pdf }) },
  { path: '/api/v1/compare', body: (pdf, other) => ({ pdf_a: pdf, pdf_b: other }) },
  { path: '/api/v1/merge', body: (pdf, other) => ({ documents: [{ pdf }, { pdf: other }] }), check: pdfWith(({ input, other }) => input + other) },
  { path: '/api/v1/split', body: (pdf) => ({ pdf, pages: '1' }), check: pdfWith(() => 1) },
  { path: '/api/v1/optimize', body: (pdf) => ({ pdf }), check: samePages },
  { path: '/api/v1/redact', body: (pdf) => ({ pdf, text: ['the'] }), check: samePages },
  { path: '/api/v1/fill-form', body: (pdf) => ({ pdf, fields: {} }), check: samePages },
  {
    path: '/api/v1/sign',
    body: (pdf) => ({ pdf, reason: 'corpus' }),
    check: async (output, counts) => (await samePages(output, counts)) ?? (await ourSignature(output)),
  },
  { path: '/api/v1/check-accessibility', body: (pdf) => ({ pdf }) },
  { path: '/api/v1/compliance-check', body: (pdf) => ({ pdf }) },
  { path: '/api/v1/forensic-analyze', body: (pdf) => ({ pdf }) },
  { path: '/v1/linearize', body: (pdf) => ({ pdf_data: pdf }), check: linearized },
  { path: '/v1/parse', body: (pdf) => ({ pdf_data: pdf }) },
  { path: '/v1/extract-text', body: (pdf) => ({ pdf_data: pdf }) },
  { path: '/v1/compare', body: (pdf, other) => ({ pdf_a: pdf, pdf_b: other }) },
  { path: '/v1/rag/chunk', body: (pdf) => ({ pdf_data: pdf }) },
];

let scratch = '';

async function withFile<T>(bytes: Uint8Array, use: (path: string) => Promise<T>): Promise<T> {
  const path = join(scratch, 'checked.pdf');
  await writeFile(path, bytes);
  return use(path);
}

/** qpdf's exit status: 0 clean, 3 warnings (a damaged source's, carried over), 2 errors. */
async function qpdfCheck(pdf: Uint8Array): Promise<string | undefined> {
  try {
    await withFile(pdf, (path) => run('qpdf', ['--check', path]));
    return undefined;
  } catch (error) {
    const { code, stdout } = error as { code?: number; stdout?: string };
    return code === 3 ? undefined : `qpdf --check exit ${code}: ${String(stdout).split('\n').slice(-3).join(' ')}`;
  }
}

async function pageCount(pdf: Uint8Array): Promise<number> {
  try {
    return Number((await withFile(pdf, (path) => run('qpdf', ['--show-npages', path]))).stdout.trim());
  } catch (error) {
    return Number(String((error as { stdout?: string }).stdout).trim()) || -1;
  }
}

async function ourSignature(pdf: Uint8Array): Promise<string | undefined> {
  let out: string;
  try {
    out = (await withFile(pdf, (path) => run('pdfsig', [path]))).stdout;
  } catch (error) {
    // pdfsig exits non-zero when any signature (a source's own, say) does not verify.
    out = String((error as { stdout?: string }).stdout);
  }
  const ours = out.split(/^Signature #\d+:$/m).find((block) => block.includes(`Common Name: ${SIGNER}`));
  const validation = ours === undefined ? undefined : /Signature Validation: (.*)/.exec(ours)?.[1];
  return validation === 'Signature is Valid.' ? undefined : `pdfsig: ${validation ?? 'our signature is missing'}`;
}

async function linearized(answer: Uint8Array): Promise<string | undefined> {
  const { data } = JSON.parse(Buffer.from(answer).toString('utf8')) as { data: { pdf_data: string; linearized: boolean; signature_count: number } };
  // A signed PDF comes back unchanged (preserve_signatures, the default), and says so.
  if (!data.linearized) return data.signature_count > 0 ? undefined : 'linearized: false for a PDF without signatures';
  const pdf = Buffer.from(data.pdf_data, 'base64');
  try {
    await withFile(pdf, (path) => run('qpdf', ['--check-linearization', path]));
    return undefined;
  } catch (error) {
    return `qpdf --check-linearization: ${String((error as { stdout?: string }).stdout).split('\n').slice(0, 2).join(' ')}`;
  }
}

async function pdfFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.pdf')).map((e) => join(e.parentPath, e.name)).sort();
}

/** A throwaway RSA signing identity for PLATEN_SIGNING_P12_FILE. */
async function signingIdentity(): Promise<string> {
  const [key, cert, p12] = ['key.pem', 'cert.pem', 'id.p12'].map((name) => join(scratch, name)) as [string, string, string];
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${SIGNER}`, '-days', '2', '-keyout', key, '-out', cert]);
  await run('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-passout', 'pass:corpus', '-out', p12]);
  return p12;
}

const root = process.argv[2];
if (root === undefined) throw new Error('usage: node dist/bench/corpus-routes.js <corpus directory>');
const step = Number(process.env.CORPUS_STEP ?? 1);
stopChildrenOnExit();
scratch = await mkdtemp(join(tmpdir(), 'platen-corpus-routes-'));
const server = await spawnServer({
  script: fileURLToPath(new URL('../src/main.js', import.meta.url)),
  port: 'announced',
  env: {
    PATH: process.env.PATH ?? '',
    PLATEN_PORT: '0',
    PLATEN_WORKERS: '1',
    PLATEN_API_KEYS: BENCH_KEY_ENTRY,
    PLATEN_DATA_DIR: join(scratch, 'data'),
    PLATEN_LOG_LEVEL: 'info',
    PLATEN_SIGNING_P12_FILE: await signingIdentity(),
    PLATEN_SIGNING_P12_PASSWORD: 'corpus',
  },
});

const files = (await pdfFiles(root)).filter((_, i) => i % step === 0);
const answers = new Map<string, Map<string, number>>();
const listed: string[] = [];
const started = performance.now();
try {
  for (const [i, file] of files.entries()) {
    const bytes = await readFile(file);
    const otherBytes = await readFile(files[(i + 1) % files.length] as string);
    const pages = { input: await pageCount(bytes), other: await pageCount(otherBytes) };
    const [pdf, other] = [bytes.toString('base64'), otherBytes.toString('base64')];
    for (const route of ROUTES) {
      const sent = performance.now();
      const response = await fetch(`${server.base}${route.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(route.body(pdf, other)),
      });
      const body = new Uint8Array(await response.arrayBuffer());
      const ms = performance.now() - sent;
      let outcome = String(response.status);
      if (response.status !== 200) outcome += ` ${(JSON.parse(Buffer.from(body).toString('utf8')) as { type?: string }).type?.split('/').pop() ?? ''}`;
      const failed = response.status === 200 && route.check !== undefined ? await route.check(body, pages) : undefined;
      if (failed !== undefined) outcome += ' output failed its check';
      const counts = answers.get(route.path) ?? new Map<string, number>();
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
      answers.set(route.path, counts);
      const relative = file.slice(root.length);
      if (response.status >= 500) listed.push(`${route.path} ${relative}: ${response.status}`);
      if (failed !== undefined) listed.push(`${route.path} ${relative}: ${failed}`);
      if (ms > SLOW_MS) listed.push(`${route.path} ${relative}: ${Math.round(ms)} ms`);
    }
  }
} finally {
  await server.stop();
  await rm(scratch, { recursive: true, force: true });
}

console.log(`${files.length} PDFs through ${ROUTES.length} routes in ${((performance.now() - started) / 60_000).toFixed(1)} minutes`);
for (const [path, counts] of answers) {
  console.log(`${path}: ${[...counts].sort((a, b) => b[1] - a[1]).map(([outcome, n]) => `${n} ${outcome}`).join(', ')}`);
}
console.log(listed.length === 0 ? 'no 5xx, no answer over 15 s, every output checked sound' : `${listed.length} to look at:\n${listed.join('\n')}`);
