// Registered fonts (PUT /api/v1/fonts/{family}): each client's own families,
// kept so that a render names a font instead of carrying its megabyte in
// every request. The embedded store keeps them under PLATEN_DATA_DIR/fonts/,
// one directory per client (an index plus one file per font, named by its
// SHA-256); the multi-node mode keeps them in Redis (redis/fonts.ts). Either
// way a render gets family → path of a local file, which the worker reads
// once and keeps by that path (workers/render/registered-fonts.ts).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export interface FontRecord {
  readonly family: string;
  /** SHA-256 (hex) of the stored sfnt bytes. */
  readonly sha256: string;
  /** Bytes stored (WOFF and WOFF2 are stored unpacked). */
  readonly size: number;
  readonly glyphs: number;
  /** The font's own full name. */
  readonly name: string;
  readonly createdAt: string;
}

export interface FontLimits {
  /** Families one client may keep. */
  readonly maxCount: number;
  /** Bytes of all of one client's fonts together. */
  readonly maxBytes: number;
}

export type PutResult =
  | { readonly kind: 'stored'; readonly record: FontRecord; readonly replaced: boolean }
  | { readonly kind: 'too-many'; readonly count: number }
  | { readonly kind: 'too-large'; readonly bytes: number };

export interface FontStore {
  /** The client's fonts, by family name. */
  list(owner: string): Promise<FontRecord[]>;
  /** Adds or replaces a family, if the client stays within `limits` (checked and applied in one step). */
  put(owner: string, record: FontRecord, bytes: Uint8Array, limits: FontLimits): Promise<PutResult>;
  /** False when the client has no such family. */
  remove(owner: string, family: string): Promise<boolean>;
  /** What a render of this client needs: family → local file. Undefined when it has none. */
  files(owner: string): Promise<Readonly<Record<string, string>> | undefined>;
}

/** Whether adding `record` to `current` keeps the client within its limits. */
export function checkLimits(current: Iterable<FontRecord>, record: FontRecord, limits: FontLimits): PutResult | undefined {
  let count = 0;
  let bytes = 0;
  let replacing = false;
  for (const existing of current) {
    if (existing.family === record.family) replacing = true;
    else {
      count += 1;
      bytes += existing.size;
    }
  }
  if (!replacing && count + 1 > limits.maxCount) return { kind: 'too-many', count };
  if (bytes + record.size > limits.maxBytes) return { kind: 'too-large', bytes };
  return undefined;
}

/** A client's directory or key part: its label hashed, since a label may hold any character. */
export function ownerKey(owner: string): string {
  return createHash('sha256').update(owner).digest('hex').slice(0, 32);
}

const byFamily = (a: FontRecord, b: FontRecord) => (a.family < b.family ? -1 : a.family > b.family ? 1 : 0);

/** The embedded store: files under `<dataDir>/fonts/<owner key>/`, each client's index kept in memory once read. */
export class FileFontStore implements FontStore {
  readonly #root: string;
  readonly #indexes = new Map<string, Map<string, FontRecord>>();
  readonly #files = new Map<string, Readonly<Record<string, string>> | undefined>();
  /** Changes of one client, one after another: two PUTs racing must not both pass the limit. */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(dataDir: string) {
    this.#root = resolve(dataDir, 'fonts');
  }

  async list(owner: string): Promise<FontRecord[]> {
    return [...(await this.#index(owner)).values()].sort(byFamily);
  }

  put(owner: string, record: FontRecord, bytes: Uint8Array, limits: FontLimits): Promise<PutResult> {
    return this.#serial(owner, async () => {
      const index = await this.#index(owner);
      const refused = checkLimits(index.values(), record, limits);
      if (refused !== undefined) return refused;
      const dir = this.#dir(owner);
      await mkdir(dir, { recursive: true });
      const file = this.#file(owner, record.sha256);
      await writeFile(`${file}.tmp`, bytes);
      await rename(`${file}.tmp`, file);
      const previous = index.get(record.family);
      index.set(record.family, record);
      await this.#save(owner, index);
      if (previous !== undefined) await this.#forgetFile(owner, index, previous.sha256);
      return { kind: 'stored', record, replaced: previous !== undefined };
    });
  }

  remove(owner: string, family: string): Promise<boolean> {
    return this.#serial(owner, async () => {
      const index = await this.#index(owner);
      const previous = index.get(family);
      if (previous === undefined) return false;
      index.delete(family);
      await this.#save(owner, index);
      await this.#forgetFile(owner, index, previous.sha256);
      return true;
    });
  }

  async files(owner: string): Promise<Readonly<Record<string, string>> | undefined> {
    if (this.#files.has(owner)) return this.#files.get(owner);
    await this.#index(owner);
    return this.#files.get(owner);
  }

  #dir(owner: string): string {
    return join(this.#root, ownerKey(owner));
  }

  #file(owner: string, sha256: string): string {
    return join(this.#dir(owner), `${sha256}.font`);
  }

  async #index(owner: string): Promise<Map<string, FontRecord>> {
    let index = this.#indexes.get(owner);
    if (index !== undefined) return index;
    let records: FontRecord[] = [];
    try {
      records = JSON.parse(await readFile(join(this.#dir(owner), 'index.json'), 'utf8')) as FontRecord[];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // Another request may have read it meanwhile: keep the first.
    index = this.#indexes.get(owner) ?? new Map(records.map((record) => [record.family, record]));
    this.#indexes.set(owner, index);
    this.#remember(owner, index);
    return index;
  }

  async #save(owner: string, index: Map<string, FontRecord>): Promise<void> {
    const path = join(this.#dir(owner), 'index.json');
    await writeFile(`${path}.tmp`, JSON.stringify([...index.values()]));
    await rename(`${path}.tmp`, path);
    this.#remember(owner, index);
  }

  #remember(owner: string, index: Map<string, FontRecord>): void {
    if (index.size === 0) {
      this.#files.set(owner, undefined);
      return;
    }
    const files: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const record of index.values()) files[record.family] = this.#file(owner, record.sha256);
    this.#files.set(owner, Object.freeze(files));
  }

  /** Deletes a font file no family of the client uses any more. */
  async #forgetFile(owner: string, index: Map<string, FontRecord>, sha256: string): Promise<void> {
    for (const record of index.values()) if (record.sha256 === sha256) return;
    await rm(this.#file(owner, sha256), { force: true });
  }

  #serial<T>(owner: string, work: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(owner) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.catch(() => undefined);
    this.#queues.set(owner, settled);
    void settled.then(() => {
      if (this.#queues.get(owner) === settled) this.#queues.delete(owner);
    });
    return run;
  }
}
