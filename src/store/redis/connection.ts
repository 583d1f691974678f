// The multi-node mode's Redis connection (ioredis). Requests must never hang
// on Redis: commands are not queued while disconnected and time out, and
// every failure to reach Redis becomes DependencyUnavailable (503
// store-unavailable + Retry-After). ioredis reconnects by itself, so
// everything recovers when Redis comes back.
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { DependencyUnavailable } from '../../unavailable.js';

/** How long one command may take before the request gives up on Redis. */
const COMMAND_TIMEOUT_MS = 2_000;

export class RedisConnection {
  readonly client: Redis;
  #down = false;

  private constructor(
    readonly url: string,
    /** Prefix of every key, so that several deployments can share one Redis. */
    readonly prefix: string,
    private readonly logger: Logger,
  ) {
    this.client = new Redis(url, { ...RedisConnection.options(), enableOfflineQueue: false, commandTimeout: COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 0 });
    this.client.on('error', (error: Error) => {
      // ioredis emits every failed reconnect; one line per outage is enough.
      if (!this.#down) this.logger.error({ err: { message: error.message } }, 'redis unreachable; routes that need it answer 503 until it is back');
      this.#down = true;
    });
    this.client.on('ready', () => {
      if (this.#down) this.logger.info('redis reachable again');
      this.#down = false;
    });
  }

  /** Connects, waiting at most `waitMs` for Redis: a node starts (not ready) even while Redis is down. */
  static async open(url: string, prefix: string, logger: Logger, waitMs = 5_000): Promise<RedisConnection> {
    const connection = new RedisConnection(url, prefix, logger);
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

  get up(): boolean {
    return this.client.status === 'ready';
  }

  key(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  /** Runs commands; any failure to reach Redis becomes DependencyUnavailable. Redis's own error replies are bugs and pass through. */
  async run<T>(commands: (client: Redis) => Promise<T>): Promise<T> {
    if (!this.up) throw new DependencyUnavailable('Redis');
    try {
      return await commands(this.client);
    } catch (error) {
      if (error instanceof ReplyError) throw error;
      throw new DependencyUnavailable('Redis');
    }
  }

  async close(): Promise<void> {
    this.client.removeAllListeners('error');
    this.client.on('error', () => undefined);
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
