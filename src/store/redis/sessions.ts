// Sessions in Redis (multi-node mode): a hash with the session's fields, a
// list with its operations, and per client a sorted set of its sessions by
// last activity (for the active-session maximum). Idle expiry is computed
// from the last activity, as in memory; the keys themselves expire two idle
// periods after the last activity, which is the removal after the grace
// period. Appends, the render's claim and end, and a creation's reservation
// run as Lua scripts, so checks and writes cannot interleave across nodes: of
// eight renders at once on any nodes, one claims the session, and creations
// on any nodes never hold more than the client's maximum.
import { randomUUID } from 'node:crypto';
import type { AppendResult, RenderClaim, RenderEnd, Reservation, SessionLimits, SessionRecord, SessionStatus, SessionStore } from '../sessions.js';
import { operationSize } from '../sessions.js';
import type { RedisConnection } from './connection.js';

// The status as it stands at now: a rendering claim past its lease is active
// again (written back), and an active session idle for a whole period is expired.
// KEYS[1] is the hash. Returns the status, or nil when the session is gone.
const STATUS_AT = `
local function status_at(now, idle)
  local status = redis.call('HGET', KEYS[1], 'status')
  if not status then return nil end
  if status == 'rendering' and now >= tonumber(redis.call('HGET', KEYS[1], 'until')) then
    status = 'active'
    redis.call('HSET', KEYS[1], 'status', status)
    redis.call('HDEL', KEYS[1], 'token', 'until')
  end
  if status == 'active' and now - tonumber(redis.call('HGET', KEYS[1], 'last')) >= idle then status = 'expired' end
  return status
end
`;

// KEYS: hash, list, owner set. ARGV: operation, maxOperations, maxBytes, now ms, idle ms, size, id.
const APPEND = `${STATUS_AT}
local status = status_at(tonumber(ARGV[4]), tonumber(ARGV[5]))
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

// A creation's place below the client's maximum: the owner set's members idle
// for a whole period are dropped (expired, as get() decides), the rest counted,
// and when there is room the id joins the set before its session exists. Its
// score is set so that the idle rule drops it once the lease has passed (a node
// that died mid-creation); create() then replaces it by the session's last
// activity, release() removes it. The set lives at least as long as the lease.
// KEYS: owner set. ARGV: now ms, idle ms, lease ms, limit, id.
const RESERVE = `
local now = tonumber(ARGV[1])
local idle = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - idle)
local active = redis.call('ZCARD', KEYS[1])
if active >= tonumber(ARGV[4]) then return {'full', active} end
redis.call('ZADD', KEYS[1], now - idle + tonumber(ARGV[3]), ARGV[5])
local ttl = 2 * idle + tonumber(ARGV[3])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return {'ok'}
`;

// The claim: active → rendering with a token and a lease. The keys live at
// least as long as the lease. KEYS: hash, list, owner set. ARGV: now ms, idle ms, lease ms, token, id.
const BEGIN_RENDER = `${STATUS_AT}
local now = tonumber(ARGV[1])
local status = status_at(now, tonumber(ARGV[2]))
if not status then return {'gone'} end
if status ~= 'active' then return {'not-active', status} end
redis.call('HSET', KEYS[1], 'status', 'rendering', 'token', ARGV[4], 'until', now + tonumber(ARGV[3]), 'last', now)
local ttl = 2 * tonumber(ARGV[2]) + tonumber(ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('ZADD', KEYS[3], now, ARGV[5])
redis.call('PEXPIRE', KEYS[3], ttl)
return {'ok'}
`;

// Ends the claim the token holds: rendered (terminal) or active again.
// KEYS: hash, list, owner set. ARGV: now ms, idle ms, token, end, id.
const END_RENDER = `
if redis.call('HGET', KEYS[1], 'status') ~= 'rendering' or redis.call('HGET', KEYS[1], 'token') ~= ARGV[3] then return 0 end
local now = tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'status', ARGV[4], 'last', now)
redis.call('HDEL', KEYS[1], 'token', 'until')
local ttl = 2 * tonumber(ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
if ARGV[4] == 'rendered' then
  redis.call('ZREM', KEYS[3], ARGV[5])
else
  redis.call('ZADD', KEYS[3], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return 1
`;

export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly idleMs: number,
    /** The clock for idle expiry and render leases (tests pass their own); key TTLs run on Redis's. */
    private readonly now: () => number = Date.now,
  ) {}

  async reserve(owner: string, id: string, limit: number, leaseMs: number): Promise<Reservation> {
    const owned = this.#keys(id, owner)[2];
    const [kind, active] = (await this.redis.run((client) => client.eval(RESERVE, 1, owned, this.now(), this.idleMs, leaseMs, limit, id))) as [string, number?];
    return kind === 'ok' ? { kind } : { kind: 'full', active: Number(active) };
  }

  async release(owner: string, id: string): Promise<void> {
    await this.redis.run((client) => client.zrem(this.#keys(id, owner)[2], id));
  }

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
          ...(record.metadata === undefined ? {} : { metadata: record.metadata }),
          ...(record.output === undefined ? {} : { output: record.output }),
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
    const now = this.now();
    let status = fields.status as SessionStatus;
    if (status === 'rendering' && now >= Number(fields.until)) status = 'active';
    if (status === 'active' && now - last >= this.idleMs) status = 'expired';
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
      ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
      ...(fields.output === undefined ? {} : { output: fields.output }),
    };
  }

  async append(id: string, operation: string, limits: SessionLimits): Promise<AppendResult> {
    const owner = (await this.get(id))?.owner;
    if (owner === undefined) return { kind: 'gone' };
    const keys = this.#keys(id, owner);
    const [kind, status] = (await this.redis.run((client) =>
      client.eval(APPEND, 3, ...keys, operation, limits.maxOperations, limits.maxBytes, this.now(), this.idleMs, operationSize(operation), id),
      // One operation may be as large as a request body (an image), and all of them together too.
      { bulk: true },
    )) as [string, string?];
    if (kind === 'ok') {
      const session = await this.get(id);
      return session === undefined ? { kind: 'gone' } : { kind: 'ok', session };
    }
    if (kind === 'not-active') return { kind, status: status as SessionStatus };
    return { kind: kind as 'full' | 'too-large' | 'gone' };
  }

  async operations(id: string): Promise<string[] | undefined> {
    return this.redis.run((client) => client.lrange(this.redis.key('sess', id, 'ops'), 0, -1), { bulk: true });
  }

  async beginRender(id: string, leaseMs: number): Promise<RenderClaim> {
    const owner = (await this.get(id))?.owner;
    if (owner === undefined) return { kind: 'gone' };
    const token = randomUUID();
    const [kind, status] = (await this.redis.run((client) =>
      client.eval(BEGIN_RENDER, 3, ...this.#keys(id, owner), this.now(), this.idleMs, leaseMs, token, id),
    )) as [string, string?];
    if (kind === 'not-active') return { kind, status: status as SessionStatus };
    const session = kind === 'ok' ? await this.get(id) : undefined;
    return session === undefined ? { kind: 'gone' } : { kind: 'ok', session, token };
  }

  async endRender(id: string, token: string, end: RenderEnd): Promise<boolean> {
    const owner = (await this.get(id))?.owner;
    if (owner === undefined) return false;
    const done = await this.redis.run((client) => client.eval(END_RENDER, 3, ...this.#keys(id, owner), this.now(), this.idleMs, token, end, id));
    return done === 1;
  }

  async remove(id: string): Promise<void> {
    const owner = (await this.get(id))?.owner;
    await this.redis.run((client) => {
      const batch = client.multi().del(this.redis.key('sess', id), this.redis.key('sess', id, 'ops'));
      if (owner !== undefined) batch.zrem(this.#keys(id, owner)[2], id);
      return batch.exec();
    });
  }

  close(): void {}

  #keys(id: string, owner: string): [string, string, string] {
    return [this.redis.key('sess', id), this.redis.key('sess', id, 'ops'), this.redis.key('sess-owner', Buffer.from(owner).toString('base64url'))];
  }
}
