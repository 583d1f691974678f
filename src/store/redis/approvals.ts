// Approvals in Redis (multi-node mode): the record as JSON and the call's
// body, both expiring at the approval's expiry, plus a sorted set of ids by
// creation time for listing. Transitions are compare-and-set in Lua, so two
// approvers, or two calls spending one approval on two nodes, cannot both
// win.
import type { ApprovalRecord, ApprovalStatus, ApprovalStore } from '../approvals.js';
import type { RedisConnection } from './connection.js';

// KEYS: record. ARGV: expected status, patch JSON.
const TRANSITION = `
local current = redis.call('GET', KEYS[1])
if not current then return false end
local record = cjson.decode(current)
if record.status ~= ARGV[1] then return false end
for field, value in pairs(cjson.decode(ARGV[2])) do record[field] = value end
local encoded = cjson.encode(record)
redis.call('SET', KEYS[1], encoded, 'KEEPTTL')
return encoded
`;

export class RedisApprovalStore implements ApprovalStore {
  constructor(private readonly redis: RedisConnection) {}

  async create(record: ApprovalRecord, body: Uint8Array): Promise<void> {
    const expiresAt = Date.parse(record.expiresAt);
    await this.redis.run((client) =>
      client
        .multi()
        .set(this.redis.key('approval', record.id), JSON.stringify(record), 'PXAT', expiresAt)
        .set(this.redis.key('approval', record.id, 'body'), Buffer.from(body.buffer, body.byteOffset, body.byteLength), 'PXAT', expiresAt)
        .zadd(this.#index(), Date.parse(record.createdAt), record.id)
        .exec(),
      // The request body: no timeout of its own (connection.ts).
      { bulk: true },
    );
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const json = await this.redis.run((client) => client.get(this.redis.key('approval', id)));
    return json === null ? undefined : fromJson(json);
  }

  async body(id: string): Promise<Uint8Array | undefined> {
    return (await this.redis.run((client) => client.getBuffer(this.redis.key('approval', id, 'body')), { bulk: true })) ?? undefined;
  }

  async transition(id: string, from: ApprovalStatus, patch: Partial<ApprovalRecord> & { status: ApprovalStatus }): Promise<ApprovalRecord | undefined> {
    const json = (await this.redis.run((client) => client.eval(TRANSITION, 1, this.redis.key('approval', id), from, JSON.stringify(patch)))) as string | null;
    return json === null ? undefined : fromJson(json);
  }

  async list(filter: { owner?: string; status?: ApprovalStatus }): Promise<ApprovalRecord[]> {
    return this.redis.run(async (client) => {
      const ids = await client.zrange(this.#index(), 0, -1);
      if (ids.length === 0) return [];
      const values = await client.mget(ids.map((id) => this.redis.key('approval', id)));
      const gone = ids.filter((_, i) => values[i] === null);
      if (gone.length > 0) await client.zrem(this.#index(), ...gone);
      return values
        .filter((value): value is string => value !== null)
        .map(fromJson)
        .filter((r) => (filter.owner === undefined || r.owner === filter.owner) && (filter.status === undefined || r.status === filter.status));
    });
  }

  close(): void {}

  #index(): string {
    return this.redis.key('approvals');
  }
}

/** cjson cannot tell an absent field from null: restore the nullable fields. */
function fromJson(json: string): ApprovalRecord {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const nullable = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : null);
  return {
    ...(raw as unknown as ApprovalRecord),
    decidedAt: nullable('decidedAt'),
    decidedBy: nullable('decidedBy'),
    reason: nullable('reason'),
    usedAt: nullable('usedAt'),
  };
}
