// Imports point down (STYLE.md): this test reads every import in src/ and
// workers/ and fails on a violation, so the layering cannot erode silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Import {
  readonly file: string;
  readonly specifier: string;
  readonly typeOnly: boolean;
}

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

async function importsOf(files: string[]): Promise<Import[]> {
  const found: Import[] = [];
  const pattern = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  for (const file of files) {
    const text = await readFile(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(pattern)) found.push({ file, specifier: match[3] as string, typeOnly: match[2] !== undefined });
  }
  return found;
}

/** Resolves a relative specifier to a repo path (`../workers/protocol.js` → `workers/protocol.ts`). */
function target(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return relative(ROOT, join(ROOT, from, '..', specifier)).replace(/\.js$/, '.ts');
}

test('workers/ never imports src/, uWS, pino, Redis or the rate limiter', async () => {
  const forbidden = [/^src\//, /uws/, /^pino/, /redis/, /rate-limiter/];
  for (const imp of await importsOf(await sources('workers'))) {
    const to = target(imp.file, imp.specifier);
    assert.ok(!forbidden.some((f) => f.test(to)), `${imp.file} imports ${imp.specifier}`);
  }
});

test('src/ imports from workers/ only the thread protocol, and only as types', async () => {
  for (const imp of await importsOf(await sources('src'))) {
    const to = target(imp.file, imp.specifier);
    if (!to.startsWith('workers/')) continue;
    assert.equal(to, 'workers/protocol.ts', `${imp.file} imports ${imp.specifier}`);
    assert.ok(imp.typeOnly, `${imp.file} imports the protocol with \`import type\``);
  }
});

test('src/http knows nothing of PDFs or of the route modules above it', async () => {
  for (const imp of await importsOf(await sources('src/http'))) {
    const to = target(imp.file, imp.specifier);
    assert.ok(!/^src\/(render|accel|store)\//.test(to) && !/pdf-lib|fontkit|sharp/.test(to), `${imp.file} imports ${imp.specifier}`);
  }
});

test('pdf-lib is used behind one seam only (workers/seams/pdf.ts, its font modules, and pdf-structure.ts for outlines and links)', async () => {
  const all = await importsOf([...(await sources('src')), ...(await sources('workers'))]);
  const users = new Set(all.filter((imp) => /pdf-lib/.test(imp.specifier)).map((imp) => imp.file));
  assert.deepEqual([...users].sort(), ['workers/seams/custom-font.ts', 'workers/seams/pdf-structure.ts', 'workers/seams/pdf.ts', 'workers/seams/standard-font.ts']);
});

test('pdf.js is used behind one seam only (workers/seams/pdfjs.ts)', async () => {
  const all = await importsOf([...(await sources('src')), ...(await sources('workers'))]);
  const users = new Set(all.filter((imp) => /pdfjs-dist/.test(imp.specifier)).map((imp) => imp.file));
  assert.deepEqual([...users].sort(), ['workers/seams/pdfjs.ts']);
});

test('qpdf (WebAssembly) is used behind one seam only (workers/seams/qpdf.ts)', async () => {
  // A CommonJS module loaded with createRequire, so the package name is searched for, not import statements.
  const users: string[] = [];
  for (const file of [...(await sources('src')), ...(await sources('workers'))]) {
    if ((await readFile(join(ROOT, file), 'utf8')).includes('@neslinesli93/qpdf-wasm')) users.push(file);
  }
  assert.deepEqual(users, ['workers/seams/qpdf.ts']);
});

// The client library runs in its caller's process, not the server's: its
// proxy settings (HTTPS_PROXY, NO_PROXY) are that process's environment.
const ENV_READERS = ['src/config.ts', 'src/client/proxy.ts'];

test('only src/config.ts (and the client library\'s proxy settings) read process.env', async () => {
  for (const file of [...(await sources('src')), ...(await sources('workers'))]) {
    const text = await readFile(join(ROOT, file), 'utf8');
    if (!ENV_READERS.includes(file)) assert.ok(!/process\.env\b/.test(text), `${file} reads process.env`);
  }
});

test('src/client imports only itself, node: built-ins and hpagent (it runs in other processes)', async () => {
  const imports = await importsOf(await sources('src/client'));
  assert.ok(imports.length > 0);
  for (const imp of imports) {
    const to = target(imp.file, imp.specifier);
    assert.ok(to.startsWith('src/client/') || to.startsWith('node:') || to === 'hpagent', `${imp.file} imports ${imp.specifier}`);
  }
});
