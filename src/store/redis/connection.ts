// The multi-node mode's Redis connection (ioredis). Requests must never hang
// on Redis, whether it is down or hung: every failure to reach it becomes
// DependencyUnavailable (503 store-unavailable + Retry-After).
//
// Down (refused, reset) is what ioredis sees: commands are not queued while
// disconnected, and it reconnects by itself. Hung (SIGSTOP, a stuck host) it
// does not see: the socket stays open and commands wait for ever; measured
// before this file handled it, every keyed request took 4 s and every job or
// session call 6 s (issue 9). So a PING on a connection of its own, every
// half timeout, is the judge: one that takes longer than PLATEN_REDIS_TIMEOUT_MS
// marks Redis stalled. While stalled, commands fail at once without being
// sent, every command still waiting is released with DependencyUnavailable,
// the node is not ready, and the rate limiters count in memory. The next PING
// that answers ends it. A request caught by the start of a hang waits at most
// about 1.5 timeouts (the PING interval plus its timeout).
//
// A command released this way may still run when Redis resumes (it was sent):
// as after any timeout, a 503 does not prove nothing was written.
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { DependencyUnavailable } from '../../unavailable.js';

export interface RunOptions {
  /**
   * The command carries or fetches a request body or a result (up to the body
   * cap): it gets no timeout of its own, which a large transfer on a slow link
   * could exceed while Redis is healthy. A stall still releases it.
   */
  readonly bulk?: boolean;
}

export class RedisConnection {
  readonly client: Redis;
  /** PINGs only, so that no large transfer on `client` delays the health check. */
  readonly #health: Redis;
  readonly #pinger: NodeJS.Timeout;
  /** Rejections of every command still waiting, called when Redis is found stalled. */
  readonly #waiting = new Set<(error: DependencyUnavailable) => void>();
  #down = false;
  #stalled = false;
  #pinging = false;

  private constructor(
    readonly url: string,
    /** Prefix of every key, so that several deployments can share one Redis. */
    readonly prefix: string,
    private readonly logger: Logger,
    /** PLATEN_REDIS_TIMEOUT_MS: longest a PING or a small command may take. */
    readonly timeoutMs: number,
  ) {
    this.client = new Redis(url, { ...RedisConnection.options(), enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    this.#health = new Redis(url, { ...RedisConnection.options(), enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    this.#health.on('error', () => undefined);
    this.client.on('error', (error: Error) => {
      // ioredis emits every failed reconnect; one line per outage is enough.
      if (!this.#down) this.logger.error({ err: { message: error.message } }, 'redis unreachable; routes that need it answer 503 until it is back');
      this.#down = true;
    });
    this.client.on('ready', () => {
      if (this.#down) this.logger.info('redis reachable again');
      this.#down = false;
    });
    this.#pinger = setInterval(() => void this.#ping(), Math.max(10, Math.floor(timeoutMs / 2)));
    this.#pinger.unref();
  }

  /** Connects, waiting at most `waitMs` for Redis: a node starts (not ready) even while Redis is down. */
  static async open(url: string, prefix: string, logger: Logger, timeoutMs: number, waitMs = 5_000): Promise<RedisConnection> {
    const connection = new RedisConnection(url, prefix, logger, timeoutMs);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      connection.client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return connection;
  }

  /** Options shared with the connections BullMQ makes (it needs its own, some of them blocking). */
  static options(): RedisOptions {
    // Reconnect quickly at first, then every 2 s: an outage ends within seconds of Redis coming back.
    return { retryStrategy: (attempt: number) => Math.min(attempt * 100, 2_000), lazyConnect: false };
  }

  /** Connected and answering its PINGs in time. */
  get up(): boolean {
    return this.client.status === 'ready' && !this.#stalled;
  }

  key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  /** Runs commands; any failure to reach Redis becomes DependencyUnavailable. Redis's own error replies are bugs and pass through. */
  async run<T>(commands: (client: Redis) => Promise<T>, options: RunOptions = {}): Promise<T> {
    if (!this.up) throw new DependencyUnavailable('Redis');
    try {
      return await this.bounded(() => commands(this.client), options);
    } catch (error) {
      if (error instanceof ReplyError) throw error;
      throw error instanceof DependencyUnavailable ? error : new DependencyUnavailable('Redis');
    }
  }

  /**
   * Waits for `work` (which talks to this Redis) at most the timeout, and no
   * longer than until Redis is found stalled: then DependencyUnavailable.
   * Whatever else `work` throws passes through unchanged (the rate limiter
   * rejects with its verdict).
   */
  bounded<T>(work: () => Promise<T>, options: RunOptions = {}): Promise<T> {
    if (this.#stalled) return Promise.reject(new DependencyUnavailable('Redis'));
    return new Promise<T>((resolve, reject) => {
      const release = (error: DependencyUnavailable) => {
        clearTimeout(timer);
        this.#waiting.delete(release);
        reject(error);
      };
      // A small command past the timeout fails its request, but only the PING decides that Redis hangs:
      // a command may wait behind a large transfer on the shared connection while Redis is healthy.
      const timer = options.bulk === true ? undefined : setTimeout(() => release(new DependencyUnavailable('Redis')), this.timeoutMs);
      this.#waiting.add(release);
      work().then(
        (value) => {
          clearTimeout(timer);
          this.#waiting.delete(release);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          this.#waiting.delete(release);
          reject(error);
        },
      );
    });
  }

  async close(): Promise<void> {
    clearInterval(this.#pinger);
    this.client.removeAllListeners('error');
    this.client.on('error', () => undefined);
    await Promise.all([this.client, this.#health].map((client) => client.quit().catch(() => client.disconnect())));
  }

  /** One PING at a time: while one is unanswered, a hung Redis would only collect more. */
  async #ping(): Promise<void> {
    if (this.#pinging || this.#health.status !== 'ready') return;
    this.#pinging = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      const ping = this.#health.ping();
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.timeoutMs)));
      if ((await Promise.race([ping, late])) === 'late') {
        this.#stall();
        // Answered when Redis runs again (SIGCONT): that ends the stall at once.
        await ping;
      }
      this.#unstall();
    } catch {
      // The connection failed: ioredis reconnects, `client` reports the outage, and a later PING ends any stall.
    } finally {
      clearTimeout(timer);
      this.#pinging = false;
    }
  }

  #stall(): void {
    if (this.#stalled) return;
    this.#stalled = true;
    this.logger.error({ timeout_ms: this.timeoutMs }, 'redis does not answer a PING in time; treated as unavailable until it does');
    const error = new DependencyUnavailable('Redis');
    for (const release of [...this.#waiting]) release(error);
  }

  #unstall(): void {
    if (!this.#stalled) return;
    this.#stalled = false;
    this.logger.info('redis answers PINGs again');
  }
}
