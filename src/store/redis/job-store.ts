// Jobs in Redis (multi-node mode): the record as JSON, the request body and
// the result as binary strings, under one id. Unfinished jobs never expire;
// a finished job's keys expire PLATEN_JOB_RETENTION_S after it finished,
// which is the retention sweep. Updates are compare-and-set in a Lua script
// (Redis 7 ships cjson), so a cancel on one node and a completion on another
// cannot both win.
import type { JobPatch, JobRecord, JobStatus, JobStore } from '../jobs.js';
import type { RedisConnection } from './connection.js';

const TERMINAL_LIST = ['completed', 'failed', 'cancelled'];
/** Request bodies and results: no timeout of their own (connection.ts). */
const BULK = { bulk: true } as const;

// KEYS: record, body, result. ARGV: patch JSON, allowed statuses JSON ([] = any), retention ms, terminal statuses JSON.
const UPDATE = `
local current = redis.call('GET', KEYS[1])
if not current then return false end
local record = cjson.decode(current)
local allowed = cjson.decode(ARGV[2])
if #allowed > 0 then
  local ok = false
  for _, status in ipairs(allowed) do if record.status == status then ok = true end end
  if not ok then return false end
end
for field, value in pairs(cjson.decode(ARGV[1])) do record[field] = value end
local encoded = cjson.encode(record)
redis.call('SET', KEYS[1], encoded)
for _, status in ipairs(cjson.decode(ARGV[4])) do
  if record.status == status then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    redis.call('PEXPIRE', KEYS[2], ARGV[3])
    redis.call('PEXPIRE', KEYS[3], ARGV[3])
  end
end
return encoded
`;

export class RedisJobStore implements JobStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly retentionMs: number,
  ) {}

  async create(record: JobRecord, body: Uint8Array): Promise<void> {
    await this.redis.run((client) =>
      client
        .multi()
        .set(this.#key(record.id, 'body'), Buffer.from(body.buffer, body.byteOffset, body.byteLength))
        .set(this.#key(record.id), JSON.stringify(record))
        .exec(),
      BULK,
    );
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const json = await this.redis.run((client) => client.get(this.#key(id)));
    return json === null ? undefined : fromJson(json);
  }

  async update(id: string, patch: JobPatch, from: readonly JobStatus[] = []): Promise<JobRecord | undefined> {
    // cjson turns JSON null into a sentinel that encodes back to null, so cleared fields stay null.
    const json = (await this.redis.run((client) =>
      client.eval(
        UPDATE,
        3,
        this.#key(id),
        this.#key(id, 'body'),
        this.#key(id, 'result'),
        JSON.stringify(patch),
        JSON.stringify(from),
        String(this.retentionMs),
        JSON.stringify(TERMINAL_LIST),
      ),
    )) as string | null;
    return json === null ? undefined : fromJson(json);
  }

  async body(id: string): Promise<Uint8Array | undefined> {
    return (await this.redis.run((client) => client.getBuffer(this.#key(id, 'body')), BULK)) ?? undefined;
  }

  async putResult(id: string, pdf: Uint8Array): Promise<void> {
    await this.redis.run((client) => client.set(this.#key(id, 'result'), Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength)), BULK);
  }

  async complete(id: string, pdf: Uint8Array, completedAt: string): Promise<JobRecord | undefined> {
    // The result first: a record that says completed always has its result.
    await this.putResult(id, pdf);
    return this.update(id, { status: 'completed', completedAt }, ['running']);
  }

  async result(id: string): Promise<Uint8Array | undefined> {
    return (await this.redis.run((client) => client.getBuffer(this.#key(id, 'result')), BULK)) ?? undefined;
  }

  async remove(id: string): Promise<void> {
    await this.redis.run((client) => client.del(this.#key(id), this.#key(id, 'body'), this.#key(id, 'result')));
  }

  #key(id: string, part?: string): string {
    return part === undefined ? this.redis.key('job', id) : this.redis.key('job', id, part);
  }
}

/** cjson writes an empty table as {} and cannot tell an absent field from null: restore the record's shape. */
function fromJson(json: string): JobRecord {
  const raw = JSON.parse(json) as Record<string, unknown>;
  const field = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : null);
  return {
    id: raw.id as string,
    owner: raw.owner as string,
    status: raw.status as JobStatus,
    createdAt: raw.createdAt as string,
    startedAt: field('startedAt'),
    completedAt: field('completedAt'),
    error: field('error'),
    idempotency: typeof raw.idempotency === 'object' && raw.idempotency !== null && 'key' in raw.idempotency ? (raw.idempotency as JobRecord['idempotency']) : null,
  };
}
