// Every ratio `make bench` reports against a baseline, each measured in
// interleaved rounds (interleave.ts) against one running server: the letter
// against a bare pool and one thread in-process, the engine's documents
// against a bare pool, a letter in a registered font and in a font sent with
// every request against the standard letter (both through the server), image
// compression against sharp on a bare pool, font subsetting against a bare
// pool, linearization against the qpdf CLI. Around the letter's server
// rounds the server's threads' CPU times are read (thread-cpu.ts): the main
// thread's share of the workers' time, the figure noise cannot move, after
// the same steady-state warm-up as main-thread.ts (warm-up.ts).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { vipsThumbnail, vipsVersion } from './baselines/vips-cli.js';
import type { ChildServer } from './child.js';
import { CpuAccount, type CpuPerRequest } from './cpu-per-request.js';
import { LETTER_JSON, REGISTERED_LETTER_JSON, STRUCTURE_LETTER_JSON, TAGGED_LETTER_JSON } from './documents.js';
import { ARTICLE, INVOICE, LETTER_CUSTOM_FONT, UNICODE } from './engine-documents.js';
import { DEJAVU_SANS_PATH, fontRequests, rotation, SUBSET_PATH, type FontRequest } from './font-requests.js';
import { cpuRatios, invoiceSides } from './invoice-pair.js';
import { interleave, spreadOf, type InterleavedRatio, type RatioSpread, type InterleaveOptions, type Side } from './interleave.js';
import { compareImageToSharp, IMAGE_TO_SHARP, sharpPool } from './image-pair.js';
import { IMAGE_PATH, photoJpeg, QUALITY, requestBody as imageBody, WIDTH } from './scenarios/image-compress.js';
import { checkRender, RENDER_HEADERS, RENDER_PATH, renderPages, saturation } from './scenarios/render.js';
import type { Settings } from './settings.js';
import { BarePool, inProcessSide, loopSide, serverSide } from './sides.js';
import { round } from './stats.js';
import { cpuSplit, threadTimes, type CpuSplit } from './thread-cpu.js';
import { warmUpLetters } from './warm-up.js';

const run = promisify(execFile);
const dejavu = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');

/** What a target asks of a median ratio, for the summary. */
export interface Target {
  readonly text: string;
  readonly met: (median: number) => boolean;
}

export interface Comparison {
  readonly ratio: InterleavedRatio;
  readonly target?: Target;
  /** How to read the ratio, when it is not simply A's throughput over B's. */
  readonly note?: string;
  /** Where each side's thread CPU was read: B's CPU per task ÷ A's, round by round (the load does not move it). */
  readonly cpu?: RatioSpread;
  /** CPU a request on each side (the server over HTTP ÷ a baseline in this process), where read (cpu-per-request.ts). */
  readonly cpuPerRequest?: CpuPerRequest;
}

export interface MainThreadCpu {
  /** Letter renders the server answered while the times were read. */
  readonly requests: number;
  readonly mainMs: number;
  readonly workersMs: number;
  readonly otherMs: number;
  /** Main-thread CPU ÷ worker-thread CPU (target ≤ 0.05). */
  readonly mainToWorkers: number;
  readonly mainUsPerRequest: number;
  readonly workersUsPerRequest: number;
}

export interface PairsResult {
  readonly comparisons: readonly Comparison[];
  readonly mainThread: MainThreadCpu;
}

const AT_LEAST = (x: number): Target => ({ text: `≥ ${x}`, met: (m) => m >= x });

async function registerFont(base: string, family: string, file: string): Promise<void> {
  const response = await fetch(`${base}/api/v1/fonts/${encodeURIComponent(family)}`, {
    method: 'PUT',
    headers: { authorization: RENDER_HEADERS.authorization as string, 'content-type': 'font/ttf' },
    body: await readFile(join(dejavu, file)),
  });
  if (response.status !== 201 && response.status !== 200) throw new Error(`registering ${family} failed: ${response.status} ${await response.text()}`);
}

async function checkOk(base: string, path: string, body: Buffer, what: string): Promise<void> {
  const response = await fetch(base + path, { method: 'POST', headers: RENDER_HEADERS, body });
  const text = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`${what}: the server answered ${response.status}: ${text.toString('utf8').slice(0, 500)}`);
}

export async function runPairs(settings: Settings, server: ChildServer, options: InterleaveOptions, step: (text: string) => void): Promise<PairsResult> {
  const connections = saturation(settings);
  const base = server.base;
  const onServer = (body: Buffer, path = RENDER_PATH): Side => serverSide('Platen', { url: base + path, headers: { ...RENDER_HEADERS }, body, connections });
  const pool = new BarePool(settings);
  const sharp = sharpPool(settings);
  const scratch = await mkdtemp(join(tmpdir(), 'platen-bench-pairs-'));
  const comparisons: Comparison[] = [];
  const compare = async (name: string, a: Side, b: Side, extra: Omit<Comparison, 'ratio'> = {}, hooks = {}) => {
    step(`${name} (${options.rounds} interleaved rounds of ${options.roundSeconds} s)`);
    const ratio = await interleave(name, a, b, options, hooks);
    step(`  median ${ratio.median} (${ratio.min}-${ratio.max}), load ${ratio.load.before} → ${ratio.load.after}`);
    comparisons.push({ ratio, ...extra });
  };
  /** As compare, with the CPU a request cost each side read around its rounds (the B side must run in this process). */
  const compareCpu = async (name: string, a: Side, b: Side, extra: Omit<Comparison, 'ratio' | 'cpuPerRequest'> = {}) => {
    const cpu = new CpuAccount(server.pid);
    await compare(name, a, b, extra, cpu.hooks);
    const last = comparisons.pop() as Comparison;
    comparisons.push({ ...last, cpuPerRequest: cpu.result() });
  };
  try {
    await checkRender(base);
    // The letter, with the server's thread CPU read around each of its rounds,
    // after the steady-state warm-up main-thread.ts gives its servers: the 3 s
    // of a round's warm-up leave the request path half optimised (warm-up.ts).
    step(`letter: warming the server up to ${settings.steadyWarmupRequests} letters`);
    step(`  ${await warmUpLetters(server, settings)} letters answered`);
    let before = threadTimes(server.pid);
    let requests = 0;
    const splits: CpuSplit[] = [];
    await compare('render letter: Platen ÷ (a) bare pool', onServer(LETTER_JSON), pool.side('bare pool', connections, () => LETTER_JSON), { target: AT_LEAST(0.9) }, {
      beforeA: () => void (before = threadTimes(server.pid)),
      afterA: (figures: { requestsPerSecond: number }) => {
        splits.push(cpuSplit(server.pid, before, threadTimes(server.pid), settings.workers));
        requests += figures.requestsPerSecond * options.roundSeconds;
      },
    });
    await compare('render letter: Platen ÷ (b) one thread in-process', onServer(LETTER_JSON), inProcessSide('in-process', LETTER_JSON));
    // Issue 15: tagging becomes the default once it is within 10% of untagged (tagged "structure" is the candidate).
    await compare('letter tagged "structure" ÷ untagged (one thread in-process each)', inProcessSide('structure', STRUCTURE_LETTER_JSON), inProcessSide('untagged', LETTER_JSON), {
      target: AT_LEAST(0.9),
      note: 'bench/tagged-cost.ts gives the same in CPU time per render, for the invoice, the article and a letter whose text varies too',
    });
    await compare('letter as PDF/UA (tagged true) ÷ untagged (one thread in-process each)', inProcessSide('PDF/UA', TAGGED_LETTER_JSON), inProcessSide('untagged', LETTER_JSON), {
      note: 'PDF/UA embeds every font (7.21.4.1), where tagged "structure" draws the standard 14 unembedded',
    });

    // Each side in a worker thread of its own: the baseline's never loads our PDF seam, whose
    // node:zlib patch of pdf-lib's flate streams would otherwise speed it up too (invoice-pair.ts).
    const [engine, naive] = invoiceSides();
    try {
      await compare('invoice: engine ÷ stock pdf-lib drawText per cell (one thread each)', engine, naive, { target: AT_LEAST(3) });
      const last = comparisons.pop() as Comparison;
      comparisons.push({ ...last, cpu: spreadOf(cpuRatios(engine, naive)) });
    } finally {
      await engine.close();
      await naive.close();
    }

    for (const [name, body] of [
      ['invoice, 10 pages', INVOICE],
      ['HTML article', ARTICLE],
      ['Unicode, custom font', UNICODE],
    ] as const) {
      await checkOk(base, RENDER_PATH, body, name);
      await compare(`${name}: Platen ÷ bare pool`, onServer(body), pool.side('bare pool', connections, () => body), { target: AT_LEAST(0.9) });
    }

    await registerFont(base, 'Brand', 'DejaVuSerif.ttf');
    await registerFont(base, 'Brand Bold', 'DejaVuSerif-Bold.ttf');
    const registered = REGISTERED_LETTER_JSON;
    await checkOk(base, RENDER_PATH, registered, 'letter in a registered font');
    await compare('letter in a registered font ÷ standard letter (both through Platen)', onServer(registered), onServer(LETTER_JSON), {
      target: { text: '≥ 0.667 (cost ≤ 1.5×)', met: (m) => m >= 1 / 1.5 },
      note: 'cost = 1 ÷ ratio',
    });
    await compare('letter with its font in every request ÷ standard letter (both through Platen)', onServer(LETTER_CUSTOM_FONT), onServer(LETTER_JSON), { note: 'cost = 1 ÷ ratio' });

    const jpeg = await photoJpeg();
    const image = await imageBody();
    step(`${IMAGE_TO_SHARP} (${options.rounds} interleaved rounds of ${options.roundSeconds} s)`);
    const imagePair = await compareImageToSharp(settings, server, sharp, options);
    step(`  median ${imagePair.ratio.median} (${imagePair.ratio.min}-${imagePair.ratio.max}), load ${imagePair.ratio.load.before} → ${imagePair.ratio.load.after}`);
    comparisons.push(imagePair);

    const vips = await vipsVersion();
    if (vips === undefined) step('image compress ÷ vips CLI: skipped, no `vips` command (Debian libvips-tools; test/tools.sh installs it)');
    else await compare(`image compress: Platen ÷ vips thumbnail CLI per request (${vips})`, onServer(image, IMAGE_PATH), loopSide('vips CLI', connections, vipsThumbnail(scratch, jpeg, WIDTH, QUALITY)));

    const requestsForFonts = fontRequests();
    const nextServer = rotation(requestsForFonts);
    const nextPool = rotation(requestsForFonts);
    const subsetOnServer = loopSide('Platen', connections, async () => {
      const response = await fetch(base + SUBSET_PATH, { method: 'POST', headers: RENDER_HEADERS, body: (nextServer() as FontRequest).body() });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`font subset failed on the server: ${response.status}`);
    });
    await compareCpu('font subset: Platen ÷ bare pool', subsetOnServer, pool.side('bare pool', connections, () => nextPool().body(), 'font-subset', { maxFontBytes: 50 * 1024 * 1024 }));

    const nextCli = rotation(requestsForFonts);
    const hbSubset = loopSide('hb-subset CLI per request', connections, async () => {
      const unicodes = nextCli()
        .codepoints.map((cp) => cp.toString(16))
        .join(',');
      await run('hb-subset', [DEJAVU_SANS_PATH, `--unicodes=${unicodes}`, '--no-hinting', '--output-file=/dev/null']);
    });
    const hasHbSubset = await run('hb-subset', ['--version']).then(
      () => true,
      () => false,
    );
    if (hasHbSubset) await compare('font subset: Platen ÷ hb-subset CLI per request', subsetOnServer, hbSubset);
    else step('font subset ÷ hb-subset CLI: skipped, no `hb-subset` command (Debian libharfbuzz-bin)');

    const pdf = await renderPages(base, 50);
    const linearizeBody = Buffer.from(JSON.stringify({ pdf_data: pdf.toString('base64') }), 'utf8');
    await checkOk(base, '/v1/linearize', linearizeBody, 'linearize');
    const input = join(scratch, 'in.pdf');
    await writeFile(input, pdf);
    let next = 0;
    const qpdf = loopSide('qpdf --linearize CLI per request', settings.workers, async () => {
      const output = join(scratch, `out-${next++}.pdf`);
      await run('qpdf', ['--linearize', input, output]);
      await readFile(output);
      await rm(output);
    });
    await compare('linearize 50 pages: Platen ÷ qpdf CLI per request', onServer(linearizeBody, '/v1/linearize'), qpdf);

    const mainMs = splits.reduce((sum, s) => sum + s.mainMs, 0);
    const workersMs = splits.reduce((sum, s) => sum + s.workersMs, 0);
    const otherMs = splits.reduce((sum, s) => sum + s.otherMs, 0);
    const count = Math.max(1, Math.round(requests));
    return {
      comparisons,
      mainThread: {
        requests: count,
        mainMs,
        workersMs,
        otherMs,
        mainToWorkers: workersMs > 0 ? round(mainMs / workersMs, 4) : 0,
        mainUsPerRequest: round((mainMs * 1000) / count, 1),
        workersUsPerRequest: round((workersMs * 1000) / count, 1),
      },
    };
  } finally {
    await pool.close();
    await sharp.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
