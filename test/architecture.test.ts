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

/**
 * Every import statement of `files`. Fails when there is nothing to read: a
 * rule over zero files or zero imports passes whatever the code does, so it
 * would prove nothing (a moved folder or a broken pattern would look green).
 */
async function importsOf(files: string[]): Promise<Import[]> {
  assert.ok(files.length > 0, 'no source files to read: the rule would prove nothing');
  const found: Import[] = [];
  for (const file of files) found.push(...(await importsIn(file)));
  assert.ok(found.length > 0, `no imports read from ${files.length} files (${files.slice(0, 3).join(', ')}...): the reader is broken`);
  return found;
}

/** The import statements of one file (static ones: `await import(...)` is not one). */
async function importsIn(file: string): Promise<Import[]> {
  const pattern = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  const text = await readFile(join(ROOT, file), 'utf8');
  return [...text.matchAll(pattern)].map((match) => ({ file, specifier: match[3] as string, typeOnly: match[2] !== undefined }));
}

/** Resolves a relative specifier to a repo path (`../workers/protocol.js` → `workers/protocol.ts`). */
function target(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return relative(ROOT, join(ROOT, from, '..', specifier)).replace(/\.js$/, '.ts');
}

/**
 * One layering rule: which files, and whether an import of theirs is
 * allowed. `violation` is an import the rule must refuse, checked first, so
 * a rule that has stopped matching anything fails instead of passing.
 */
interface LayerRule {
  readonly name: string;
  readonly files: () => Promise<string[]>;
  readonly allows: (imp: Import, to: string) => boolean;
  readonly violation: Import;
}

const RULES: readonly LayerRule[] = [
  {
    name: 'workers/ never imports src/, uWS, pino, Redis or the rate limiter',
    files: () => sources('workers'),
    allows: (_, to) => ![/^src\//, /uws/, /^pino/, /redis/, /rate-limiter/].some((f) => f.test(to)),
    violation: { file: 'workers/index.ts', specifier: '../src/config.js', typeOnly: true },
  },
  {
    name: 'src/ imports from workers/ only the thread protocol, and only as types',
    files: () => sources('src'),
    allows: (imp, to) => !to.startsWith('workers/') || (to === 'workers/protocol.ts' && imp.typeOnly),
    violation: { file: 'src/render/render.ts', specifier: '../../workers/protocol.js', typeOnly: false },
  },
  {
    name: 'src/http knows nothing of PDFs or of the route modules and stores above it',
    files: () => sources('src/http'),
    allows: (_, to) => !/^src\/(render|accel|store)\//.test(to) && !/pdf-lib|pdfjs|fontkit|sharp/.test(to),
    violation: { file: 'src/http/router.ts', specifier: '../render/render.js', typeOnly: true },
  },
  {
    // Keys, tiers and the approval decisions sit below the HTTP layer, which asks them.
    name: 'src/auth imports neither the HTTP layer nor anything above it',
    files: () => sources('src/auth'),
    allows: (_, to) => !/^src\/(http|render|accel|pool|jobs|metrics|client)\//.test(to) && !/^src\/(server|backends|health|main)\.ts$/.test(to),
    violation: { file: 'src/auth/approvals.ts', specifier: '../http/problem.js', typeOnly: false },
  },
  {
    // Everything reads the configuration, so it may read nothing of ours but the tier names it validates.
    name: 'src/config.ts (with its schema and types) imports only node: built-ins, valibot, the tier names and itself',
    files: async () => ['src/config.ts', 'src/config-env.ts', 'src/config-types.ts'],
    allows: (_, to) => to.startsWith('node:') || to === 'valibot' || to === 'src/auth/tiers.ts' || /^src\/config(-env|-types)?\.ts$/.test(to),
    violation: { file: 'src/config.ts', specifier: './store/nodes.js', typeOnly: false },
  },
  {
    name: 'src/client imports only itself, node: built-ins and hpagent (it runs in other processes)',
    files: () => sources('src/client'),
    allows: (_, to) => to.startsWith('src/client/') || to.startsWith('node:') || to === 'hpagent',
    violation: { file: 'src/client/client.ts', specifier: '../http/problem.js', typeOnly: true },
  },
];

for (const rule of RULES) {
  test(rule.name, async () => {
    const { violation } = rule;
    assert.equal(rule.allows(violation, target(violation.file, violation.specifier)), false, `the rule lets through ${violation.file} -> ${violation.specifier}`);
    for (const imp of await importsOf(await rule.files())) {
      assert.ok(rule.allows(imp, target(imp.file, imp.specifier)), `${imp.file} imports ${imp.specifier}`);
    }
  });
}

test('src/ really imports the thread protocol (the rule above resolves paths that exist)', async () => {
  const protocol = (await importsOf(await sources('src'))).filter((imp) => target(imp.file, imp.specifier) === 'workers/protocol.ts');
  assert.ok(protocol.length > 0);
});

test('pdf-lib is used behind one seam only (workers/seams/pdf.ts, its font modules, and pdf-structure.ts for outlines and links, pdf-tagged.ts for the structure tree of rendered PDFs and pdf-packed-streams.ts for the object streams it is packed in, pdf-outline.ts for their outline, pdf-attachments.ts and pdf-cidset.ts for their embedded files and PDF/A-1 CIDSets)', async () => {
  const all = await importsOf([...(await sources('src')), ...(await sources('workers'))]);
  const users = new Set(all.filter((imp) => /pdf-lib/.test(imp.specifier)).map((imp) => imp.file));
  assert.deepEqual([...users].sort(), ['workers/seams/custom-font.ts', 'workers/seams/pdf-attachments.ts', 'workers/seams/pdf-cidset.ts', 'workers/seams/pdf-deflate.ts', 'workers/seams/pdf-font-embed.ts', 'workers/seams/pdf-font-widths.ts', 'workers/seams/pdf-form-appearance.ts', 'workers/seams/pdf-form-flatten.ts', 'workers/seams/pdf-form-list.ts', 'workers/seams/pdf-form-text.ts', 'workers/seams/pdf-form.ts', 'workers/seams/pdf-fresh-save.ts', 'workers/seams/pdf-image-pixels.ts', 'workers/seams/pdf-images.ts', 'workers/seams/pdf-objects.ts', 'workers/seams/pdf-outline.ts', 'workers/seams/pdf-packed-streams.ts', 'workers/seams/pdf-redaction-resources.ts', 'workers/seams/pdf-redaction.ts', 'workers/seams/pdf-rewrite.ts', 'workers/seams/pdf-serialized.ts', 'workers/seams/pdf-signature-appearance.ts', 'workers/seams/pdf-signature.ts', 'workers/seams/pdf-stream-copy.ts', 'workers/seams/pdf-structure.ts', 'workers/seams/pdf-tagged.ts', 'workers/seams/pdf-writer-speed.ts', 'workers/seams/pdf.ts', 'workers/seams/standard-font.ts']);
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
  const files = [...(await sources('src')), ...(await sources('workers'))];
  assert.ok(files.length > 0);
  for (const file of files) {
    const reads = /process\.env\b/.test(await readFile(join(ROOT, file), 'utf8'));
    // The readers are read too: a pattern that finds nothing in them would find nothing anywhere.
    assert.equal(reads, ENV_READERS.includes(file), `${file} ${reads ? 'reads' : 'does not read'} process.env`);
  }
});


// The packages only some modes use, loaded where the mode is chosen (dynamic
// import) so that a default server's main thread pays neither their start-up
// nor their heap: measured with bench/start-up.ts, main-thread CPU to the first
// 200 went from 410 to 110 ms and RSS from 222 to 172 MB when they left it.
const LOADED_ON_DEMAND = ['@lancedb/lancedb', 'apache-arrow', 'bullmq', 'hpagent', 'ioredis', 'pg', 'prom-client', 'rate-limiter-flexible'];

/** The packages a module's static (non-type) imports reach, followed through src/ from `entry`. */
async function staticallyReached(entry: string): Promise<Set<string>> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imp of await importsIn(file)) {
      if (imp.typeOnly) continue;
      const to = target(imp.file, imp.specifier);
      if (imp.specifier.startsWith('.')) queue.push(to);
      else if (!to.startsWith('node:')) packages.add(to.startsWith('@') ? to.split('/').slice(0, 2).join('/') : (to.split('/')[0] as string));
    }
  }
  return packages;
}

test('the main thread loads the packages of optional modes (Redis, pgvector, the embedded vector store, metrics, an embeddings provider) only when they are on', async () => {
  const reached = await staticallyReached('src/main.ts');
  // The walk must see what start-up does load, or it proves nothing.
  for (const loaded of ['piscina', 'pino', 'valibot']) assert.ok(reached.has(loaded), `the walk from src/main.ts does not reach ${loaded}`);
  assert.deepEqual(LOADED_ON_DEMAND.filter((name) => reached.has(name)), []);
});
