// A server under test as a child process of its own, so that the load
// generator (autocannon, in this process) never shares an event loop or a
// heap with it. Start: spawn, learn the port, wait for GET /healthz. Stop:
// SIGTERM (the server's graceful path), SIGKILL only if it hangs.
//
// The child writes its stdout and stderr straight into a temporary file: in
// the overload run the server logs every 503 (5xx are logged at error), and
// reading that through a pipe would cost the bench's own CPU, which the load
// generator needs. The file also lets a scenario read the server's own
// completion lines afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ChildServer {
  readonly base: string;
  readonly pid: number;
  /** Bytes the process has written to stdout and stderr so far. */
  outputBytes(): number;
  /** What it wrote from byte `from` on (default: the last 64 KiB). */
  output(from?: number): string;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface SpawnOptions {
  /** The built .js entry point. */
  readonly script: string;
  /** The child's whole environment: nothing of ours (e.g. a stray PLATEN_*) leaks in. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * A port already chosen (see freePort), or 'announced': the child listens on
   * port 0 and prints a JSON line with "msg":"listening" and "port":N.
   */
  readonly port: number | 'announced';
  /** Node options before the script (e.g. --cpu-prof, which NODE_OPTIONS refuses). */
  readonly nodeArgs?: readonly string[];
  /** Arguments after the script. */
  readonly args?: readonly string[];
}

const START_TIMEOUT_MS = 20_000;
/** Above the server's default PLATEN_SHUTDOWN_GRACE_MS (10 s). */
const STOP_TIMEOUT_MS = 15_000;
const POLL_MS = 50;
const TAIL_BYTES = 64 * 1024;

const live = new Set<ChildProcess>();
const scratch = new Set<string>();

/** On any exit of the bench: SIGTERM to children still running (by their own pid only), scratch files removed. */
export function stopChildrenOnExit(): void {
  process.once('exit', () => {
    for (const child of live) child.kill('SIGTERM');
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => process.exit(130));
  }
}

export async function spawnServer(options: SpawnOptions): Promise<ChildServer> {
  const dir = mkdtempSync(join(tmpdir(), 'platen-bench-'));
  scratch.add(dir);
  const logPath = join(dir, 'output.log');
  const fd = openSync(logPath, 'w');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...(options.args ?? [])], { env: { ...options.env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );

  const outputBytes = () => statSync(logPath).size;
  const output = (from = Math.max(0, outputBytes() - TAIL_BYTES)) => readFrom(logPath, from);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const code = await Promise.race([exited, sleep(STOP_TIMEOUT_MS, 'timeout' as const, { ref: false })]);
    if (code !== 'timeout') return code;
    child.kill('SIGKILL');
    return exited;
  };

  // Ends the polling loops when start-up ends, either way.
  const done = new AbortController();
  try {
    const port = options.port === 'announced' ? await startup(announcedPort(() => output(0), done.signal), exited) : options.port;
    const base = `http://127.0.0.1:${port}`;
    await startup(healthy(base, done.signal), exited);
    return { base, pid: child.pid ?? -1, outputBytes, output, stop };
  } catch (error) {
    await stop();
    throw new Error(`${options.script} did not start: ${(error as Error).message}\n${output()}`);
  } finally {
    done.abort();
  }
}

/** A port free right now on 127.0.0.1 (the kernel picks it); for children that do not announce theirs. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function readFrom(path: string, from: number): string {
  const size = statSync(path).size;
  if (size <= from) return '';
  const buffer = Buffer.alloc(size - from);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buffer, 0, buffer.byteLength, from);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('utf8');
}

async function announcedPort(read: () => string, signal: AbortSignal): Promise<number> {
  while (!signal.aborted) {
    for (const line of read().split('\n')) {
      const port = listeningPort(line);
      if (port !== undefined) return port;
    }
    await sleep(POLL_MS);
  }
  return -1;
}

function listeningPort(line: string): number | undefined {
  if (!line.includes('listening')) return undefined;
  try {
    const parsed = JSON.parse(line) as { msg?: unknown; port?: unknown };
    return parsed.msg === 'listening' && typeof parsed.port === 'number' ? parsed.port : undefined;
  } catch {
    return undefined;
  }
}

/** Whichever comes first: the step, the child's exit, or the start-up timeout. */
async function startup<T>(step: Promise<T>, exited: Promise<number | null>): Promise<T> {
  const result = await Promise.race([
    step.then((value) => ({ value })),
    exited.then((code) => ({ exit: code })),
    sleep(START_TIMEOUT_MS, { timeout: true as const }, { ref: false }),
  ]);
  if ('value' in result) return result.value;
  if ('exit' in result) throw new Error(`exited with code ${result.exit}`);
  throw new Error(`no answer within ${START_TIMEOUT_MS} ms`);
}

/** Polls GET /healthz until 200: listening is not the same as ready (workers start). */
async function healthy(base: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const response = await fetch(`${base}/healthz`, { signal });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not accepting connections yet.
    }
    await sleep(POLL_MS);
  }
}
