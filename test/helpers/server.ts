// Real servers on port 0 for black-box tests: in-process (fast; lets tests
// swap in fixture workers and share a SharedArrayBuffer with them) or as a
// child process (for what only a process shows: its log output and signals).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server.js';
import { KEY_ENTRIES } from './keys.js';

export interface TestServer {
  readonly base: string;
  readonly server: RunningServer;
  /** Parsed pino lines written so far. */
  readonly logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export type TestServerOptions = Omit<ServerOptions, 'logger'>;

export const FAULT_WORKER = fileURLToPath(new URL('../fixtures/fault-worker.js', import.meta.url));

/** Defaults a test may override: two workers, the three test keys, quiet but captured logs, a data directory of its own. */
export function testEnv(env: Record<string, string> = {}): Record<string, string> {
  return { PLATEN_PORT: '0', PLATEN_WORKERS: '2', PLATEN_API_KEYS: KEY_ENTRIES, PLATEN_LOG_LEVEL: 'info', PLATEN_DATA_DIR: temporaryDataDir(), ...env };
}

const dataDirs: string[] = [];
process.once('exit', () => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh data directory; removed when the test process exits. */
export function temporaryDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'platen-data-'));
  dataDirs.push(dir);
  return dir;
}

export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig(testEnv(env));
  const server = await startServer(config, { logger: createLogger(config.logLevel, sink), ...options });
  return { base: `http://127.0.0.1:${server.port}`, server, logs, close: () => server.close() };
}

export interface SpawnedServer {
  readonly base: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

/** Several servers at once; when one cannot start, those that did are stopped before the error is thrown. */
export async function spawnServers(...envs: Record<string, string>[]): Promise<SpawnedServer[]> {
  const started = await Promise.allSettled(envs.map((env) => spawnServer(env)));
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed === undefined) return started.map((result) => (result as PromiseFulfilledResult<SpawnedServer>).value);
  await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.kill('SIGKILL') : undefined)));
  throw failed.reason;
}

export function spawnServer(env: Record<string, string> = {}): Promise<SpawnedServer> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...testEnv(env) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    // A bound on a failure, not a wait: start-up warms every worker thread (pdf.js, HarfBuzz and qpdf
    // included), which took over 15 s on this 2-core machine at a load average of 20; an exit fails at once.
    // A child left running would keep the test process (and the whole run) alive: it is killed first.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      resolve({
        base: `http://127.0.0.1:${match[1]}`,
        child,
        output: () => output,
        exited,
        kill: (signal = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
}
