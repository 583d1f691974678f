// The image-compress task in-process, on the bench's 2.3 MB body (a 3000 x
// 2000 photo JPEG in base64): the request read from the raw bytes
// (task/binary-fields.ts, issue 14; the field decoded in pieces, never a
// string) against the same task parsing the whole body as a string. Alternating rounds (A B A B ...), so that load on a
// shared machine lands on both sides; the median of the per-round ratios,
// with their spread. Also the request start alone (parse + validation +
// base64 decode), where the difference is made.
//   node dist/bench/binary-fields.js [rounds]
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { imageCompress, compressImage } from '../workers/image/compress.js';
import { CompressRequest } from '../workers/image/request.js';
import { jsonTask } from '../workers/task/json-task.js';
import { readJsonRequest } from '../workers/task/json-request.js';
import { decodeBase64, forgetDecoded } from '../workers/task/base64.js';
import type { TaskInput } from '../workers/protocol.js';
import { requestBody } from './scenarios/image-compress.js';

const ROUNDS = Number(process.argv[2] ?? 7);
const PER_ROUND = 10;
const OPTIONS = { maxImageBytes: 32 * 1024 * 1024, maxImagePixels: 100_000_000, timeoutMs: 60_000 };
const wholeBody = jsonTask(CompressRequest, compressImage);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * CPU time per call (this process's user + system time, every thread): what
 * other processes on a shared machine cannot inflate the way they inflate
 * wall time. Wall time is reported beside it.
 */
async function msPerCall(run: () => Promise<unknown> | unknown): Promise<{ cpu: number; wall: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < PER_ROUND; i++) await run();
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / 1000 / PER_ROUND, wall: (performance.now() - started) / PER_ROUND };
}

async function compare(name: string, fast: () => Promise<unknown> | unknown, whole: () => Promise<unknown> | unknown): Promise<void> {
  await msPerCall(fast);
  await msPerCall(whole);
  const a: Array<{ cpu: number; wall: number }> = [];
  const b: Array<{ cpu: number; wall: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    a.push(await msPerCall(fast));
    b.push(await msPerCall(whole));
  }
  const fmt = (n: number) => n.toFixed(2);
  for (const kind of ['cpu', 'wall'] as const) {
    const ratios = a.map((x, i) => x[kind] / (b[i] as { cpu: number; wall: number })[kind]);
    console.log(
      `${name}, ${kind} ms: raw bytes ${fmt(median(a.map((x) => x[kind])))}, whole body ${fmt(median(b.map((x) => x[kind])))}; ratio ${fmt(median(ratios))} (rounds ${fmt(Math.min(...ratios))}-${fmt(Math.max(...ratios))})`,
    );
  }
}

const body = new Uint8Array(await requestBody());
const input = (): TaskInput<typeof OPTIONS> => {
  const copy = body.slice();
  return { body: copy.buffer, length: copy.byteLength, options: OPTIONS };
};
console.log(`body ${body.byteLength} bytes, ${ROUNDS} rounds of ${PER_ROUND}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const start = (binaryFields?: readonly string[]) => () => {
  const { body: buffer, length } = input();
  // As jsonTask reads it: the field decoded, no string of it (binaryAs 'bytes').
  const read = readJsonRequest(buffer, length, CompressRequest, binaryFields === undefined ? {} : { binaryFields, binaryAs: 'bytes' });
  if (!read.ok || decodeBase64(read.value.image_data, OPTIONS.maxImageBytes) instanceof Uint8Array === false) throw new Error('the request start failed');
  forgetDecoded();
};
await compare('request start (parse, validate, decode)', start(['image_data']), start());
await compare('image-compress task', () => imageCompress(input()), () => wholeBody(input()));
console.log(`load after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
