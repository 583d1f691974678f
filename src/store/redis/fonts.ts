// Registered fonts in Redis (multi-node mode): per client a hash of family →
// record JSON, and each font's bytes under its own key. A put checks the
// client's limits and writes in one Lua script, so two nodes cannot both let
// a client past them. Workers read files, not Redis: each node copies a font
// it needs into PLATEN_DATA_DIR/font-cache/<sha256> once (content-addressed,
// so the copy never goes stale), and keeps each client's family → file list
// for FILES_TTL_MS: a font registered or removed on another node is seen
// here within that time (on this node, at once). While Redis is unreachable
// the list last read stays in use, however old.
import { access, mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ownerKey, type FontLimits, type FontRecord, type FontStore, type PutResult } from '../fonts.js';
import type { RedisConnection } from './connection.js';
import { DependencyUnavailable } from '../../unavailable.js';

/** How long a node trusts its copy of a client's font list (see above). */
export const FILES_TTL_MS = 1_000;

// KEYS: index hash, new blob. ARGV: family, record JSON, size, max count, max bytes, bytes, blob key prefix.
// Answers {'stored', replaced 0/1} or {'too-many', count} or {'too-large', bytes}.
const PUT = `
local count, bytes, previous = 0, 0, nil
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local record = cjson.decode(entries[i + 1])
  if entries[i] == ARGV[1] then previous = record
  else count = count + 1; bytes = bytes + record.size end
end
if previous == nil and count + 1 > tonumber(ARGV[4]) then return {'too-many', count} end
if bytes + tonumber(ARGV[3]) > tonumber(ARGV[5]) then return {'too-large', bytes} end
redis.call('SET', KEYS[2], ARGV[6])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if previous ~= nil and previous.sha256 ~= cjson.decode(ARGV[2]).sha256 then
  local used = false
  for i = 1, #entries, 2 do
    if entries[i] ~= ARGV[1] and cjson.decode(entries[i + 1]).sha256 == previous.sha256 then used = true end
  end
  if not used then redis.call('DEL', ARGV[7] .. previous.sha256) end
end
if previous == nil then return {'stored', 0} end
return {'stored', 1}
`;

// KEYS: index hash. ARGV: family, blob key prefix. Answers 1 when removed.
const REMOVE = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
local sha = cjson.decode(current).sha256
for _, value in ipairs(redis.call('HVALS', KEYS[1])) do
  if cjson.decode(value).sha256 == sha then return 1 end
end
redis.call('DEL', ARGV[2] .. sha)
return 1
`;

interface CachedFiles {
  readonly at: number;
  readonly files: Readonly<Record<string, string>> | undefined;
}

export class RedisFontStore implements FontStore {
  readonly #cacheDir: string;
  readonly #cached = new Map<string, CachedFiles>();
  /** Fonts known to be in the local cache directory. */
  readonly #local = new Set<string>();

  constructor(
    private readonly redis: RedisConnection,
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#cacheDir = resolve(dataDir, 'font-cache');
  }

  async list(owner: string): Promise<FontRecord[]> {
    const entries = await this.redis.run((client) => client.hgetall(this.#index(owner)));
    return Object.values(entries)
      .map((json) => JSON.parse(json) as FontRecord)
      .sort((a, b) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0));
  }

  async put(owner: string, record: FontRecord, bytes: Uint8Array, limits: FontLimits): Promise<PutResult> {
    const answer = (await this.redis.run(
      (client) =>
        client.eval(
          PUT,
          2,
          this.#index(owner),
          this.#blobPrefix(owner) + record.sha256,
          record.family,
          JSON.stringify(record),
          String(record.size),
          String(limits.maxCount),
          String(limits.maxBytes),
          Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          this.#blobPrefix(owner),
        ),
      // The font itself: no timeout of its own (connection.ts).
      { bulk: true },
    )) as [string, number];
    this.#cached.delete(owner);
    const [kind, figure] = answer;
    if (kind === 'too-many') return { kind, count: figure };
    if (kind === 'too-large') return { kind, bytes: figure };
    return { kind: 'stored', record, replaced: figure === 1 };
  }

  async remove(owner: string, family: string): Promise<boolean> {
    const removed = (await this.redis.run((client) => client.eval(REMOVE, 1, this.#index(owner), family, this.#blobPrefix(owner)))) as number;
    this.#cached.delete(owner);
    return removed === 1;
  }

  async files(owner: string): Promise<Readonly<Record<string, string>> | undefined> {
    const cached = this.#cached.get(owner);
    if (cached !== undefined && this.now() - cached.at < FILES_TTL_MS) return cached.files;
    let records: FontRecord[];
    try {
      records = await this.list(owner);
    } catch (error) {
      // Redis unreachable: the list last read is the best answer there is, and renders go on with it.
      if (error instanceof DependencyUnavailable && cached !== undefined) return cached.files;
      throw error;
    }
    let files: Record<string, string> | undefined;
    for (const record of records) {
      const path = await this.#localCopy(owner, record.sha256);
      // Removed between the list and the copy: left out, as if listed a moment later.
      if (path !== undefined) (files ??= Object.create(null) as Record<string, string>)[record.family] = path;
    }
    const frozen = files === undefined ? undefined : Object.freeze(files);
    this.#cached.set(owner, { at: this.now(), files: frozen });
    return frozen;
  }

  async #localCopy(owner: string, sha256: string): Promise<string | undefined> {
    const path = join(this.#cacheDir, `${sha256}.font`);
    if (this.#local.has(sha256)) return path;
    try {
      await access(path);
    } catch {
      const bytes = await this.redis.run((client) => client.getBuffer(this.#blobPrefix(owner) + sha256), { bulk: true });
      if (bytes === null) return undefined;
      await mkdir(this.#cacheDir, { recursive: true });
      const partial = `${path}.${process.pid}.tmp`;
      await writeFile(partial, bytes);
      await rename(partial, path);
    }
    this.#local.add(sha256);
    return path;
  }

  #index(owner: string): string {
    return this.redis.key('fonts', ownerKey(owner));
  }

  #blobPrefix(owner: string): string {
    return `${this.redis.key('font', ownerKey(owner))}:`;
  }
}
