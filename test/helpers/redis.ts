// A real redis-server (Debian's, installed by test/tools.sh) on a free
// loopback port, for the multi-node tests. No persistence; noeviction, as
// BullMQ requires.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Socket } from 'node:net';
import { after, before } from 'node:test';
import { waitFor } from './wait.js';

export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (an outage). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: nothing was persisted). */
  start(): Promise<void>;
  /** SIGSTOP: a hung server. Connections stay open and the kernel still accepts bytes, but nothing answers. */
  pause(): void;
  /** SIGCONT: the hung server answers again, everything sent meanwhile included. */
  resume(): void;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'], {
      stdio: 'ignore',
    });
    await waitFor(() => answersPing(port), { timeoutMs: 5_000, intervalMs: 50, what: `redis-server answering on port ${port}` });
  };
  const stop = async () => {
    const running = child;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  const signal = (name: NodeJS.Signals) => {
    if (child === undefined || child.exitCode !== null || child.kill(name) !== true) throw new Error(`redis-server is not running to get ${name}`);
  };
  process.once('exit', () => child?.kill('SIGKILL'));
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start, pause: () => signal('SIGSTOP'), resume: () => signal('SIGCONT') };
}

/**
 * A redis-server for the tests of the enclosing describe: started before
 * them and stopped after, `use` told of it each time (undefined once it is
 * stopped), so that a suite can run once embedded and once here.
 */
export function redisAround(use: (redis: TestRedis | undefined) => void): void {
  let redis: TestRedis | undefined;
  before(async () => {
    redis = await startRedis();
    use(redis);
  });
  after(async () => {
    await redis?.stop();
    redis = undefined;
    use(undefined);
  });
}

let prefixes = 0;

/** Environment that puts a test server's state in `redis` under a key prefix of its own; empty without one. */
export function redisEnv(redis: TestRedis | undefined): Record<string, string> {
  return redis === undefined ? {} : { PLATEN_REDIS_URL: redis.url, PLATEN_REDIS_PREFIX: `test-${process.pid}-${++prefixes}` };
}
