// Sessions in Redis (multi-node mode): a hash with the session's fields, a
// list with its operations, and per client a sorted set of its sessions by
// last activity (for the active-session maximum). Idle expiry is computed
// from the last activity, as in memory; the keys themselves expire two idle
// periods after the last activity, which is the removal after the grace
// period. Appends and the final transition run as Lua scripts, so checks and
// writes cannot interleave across nodes.
import type { AppendResult, SessionLimits, SessionRecord, SessionStatus, SessionStore } from '../sessions.js';
import { operationSize } from '../sessions.js';
import type { RedisConnection } from './connection.js';

// KEYS: hash, list, owner set. ARGV: operation, maxOperations, maxBytes, now ms, idle ms, size, id.
const APPEND = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'gone'} end
local now = tonumber(ARGV[4])
if status == 'active' and now - tonumber(redis.call('HGET', KEYS[1], 'last')) >= tonumber(ARGV[5]) then status = 'expired' end
if status ~= 'active' then return {'not-active', status} end
local count = tonumber(redis.call('HGET', KEYS[1], 'count'))
if count >= tonumber(ARGV[2]) then return {'full'} end
local bytes = tonumber(redis.call('HGET', KEYS[1], 'bytes')) + tonumber(ARGV[6])
if bytes > tonumber(ARGV[3]) then return {'too-large'} end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'count', count + 1, 'bytes', bytes, 'last', now)
local ttl = 2 * tonumber(ARGV[5])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('ZADD', KEYS[3], now, ARGV[7])
redis.call('PEXPIRE', KEYS[3], ttl)
return {'ok'}
`;

// KEYS: hash, list, owner set. ARGV: now ms, idle ms, id.
const FINISH = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
local now = tonumber(ARGV[1])
if status ~= 'active' or now - tonumber(redis.call('HGET', KEYS[1], 'last')) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'status', 'rendered', 'last', now)
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[2], 2 * tonumber(ARGV[2]))
redis.call('ZREM', KEYS[3], ARGV[3])
return 1
`;

export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly idleMs: number,
  ) {}

  async create(record: SessionRecord): Promise<void> {
    const now = Date.parse(record.lastActivityAt);
    const [hash, list, owned] = this.#keys(record.id, record.owner);
    await this.redis.run((client) =>
      client
        .multi()
        .hset(hash, {
          owner: record.owner,
          status: record.status,
          document: record.documentId,
          page_size: record.pageSize,
          orientation: record.orientation,
          created: Date.parse(record.createdAt),
          last: now,
          count: 0,
          bytes: 0,
        })
        .pexpire(hash, 2 * this.idleMs)
        .zadd(owned, now, record.id)
        .pexpire(owned, 2 * this.idleMs)
        .del(list)
        .exec(),
    );
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const fields = await this.redis.run((client) => client.hgetall(this.redis.key('sess', id)));
    if (fields.status === undefined) return undefined;
    const last = Number(fields.last);
    let status = fields.status as SessionStatus;
    if (status === 'active' && Date.now() - last >= this.idleMs) status = 'expired';
    return {
      id,
      owner: fields.owner ?? '',
      status,
      documentId: fields.document ?? '',
      pageSize: fields.page_size ?? 'A4',
      orientation: fields.orientation ?? 'portrait',
      createdAt: new Date(Number(fields.created)).toISOString(),
      lastActivityAt: new Date(last).toISOString(),
      operationCount: Number(fields.count),
      bytes: Number(fields.bytes),
    };
  }

  async append(id: string, operation: string, limits: SessionLimits): Promise<AppendResult> {
    const owner = (await this.get(id))?.owner;
    if (owner === undefined) return { kind: 'gone' };
    const keys = this.#keys(id, owner);
    const [kind, status] = (await this.redis.run((client) =>
      client.eval(APPEND, 3, ...keys, operation, limits.maxOperations, limits.maxBytes, Date.now(), this.idleMs, operationSize(operation), id),
    )) as [string, string?];
    if (kind === 'ok') {
      const session = await this.get(id);
      return session === undefined ? { kind: 'gone' } : { kind: 'ok', session };
    }
    if (kind === 'not-active') return { kind, status: status as SessionStatus };
    return { kind: kind as 'full' | 'too-large' | 'gone' };
  }

  async operations(id: string): Promise<string[] | undefined> {
    return this.redis.run((client) => client.lrange(this.redis.key('sess', id, 'ops'), 0, -1));
  }

  async finish(id: string): Promise<SessionRecord | undefined> {
    const owner = (await this.get(id))?.owner;
    if (owner === undefined) return undefined;
    const done = await this.redis.run((client) => client.eval(FINISH, 3, ...this.#keys(id, owner), Date.now(), this.idleMs, id));
    return done === 1 ? this.get(id) : undefined;
  }

  async remove(id: string): Promise<void> {
    const owner = (await this.get(id))?.owner;
    await this.redis.run((client) => {
      const batch = client.multi().del(this.redis.key('sess', id), this.redis.key('sess', id, 'ops'));
      if (owner !== undefined) batch.zrem(this.#keys(id, owner)[2], id);
      return batch.exec();
    });
  }

  async activeCount(owner: string): Promise<number> {
    const owned = this.#keys('', owner)[2];
    const idleSince = Date.now() - this.idleMs;
    return this.redis.run(async (client) => {
      // Members idle for a whole period are expired: drop them, count the rest.
      await client.zremrangebyscore(owned, '-inf', `(${idleSince}`);
      return client.zcard(owned);
    });
  }

  close(): void {}

  #keys(id: string, owner: string): [string, string, string] {
    return [this.redis.key('sess', id), this.redis.key('sess', id, 'ops'), this.redis.key('sess-owner', Buffer.from(owner).toString('base64url'))];
  }
}
