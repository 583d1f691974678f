// The embedded job store: one directory under PLATEN_DATA_DIR, three files a
// job (record, body, result), each written atomically (a temporary file,
// fsync, rename, then the directory fsync'd), so an accepted job survives a
// crash and a reader never sees half a file. Writes go in group commits
// (group-commit.ts): many jobs' changes share one round of fsyncs. Records
// are also held in memory: GET /jobs/{id} reads no disk.
//
// A job's move to `running` is kept in memory only (its file still says
// `pending` until the job finishes): after a crash a job recorded `running`
// is run again exactly like a `pending` one (at least once), so writing it
// would buy nothing and cost every job a file write and an fsync.
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { GroupCommit } from './group-commit.js';
import type { JobPatch, JobRecord, JobStatus, JobStore } from './jobs.js';

/**
 * Request bodies of jobs not yet started are also kept in memory up to this
 * many bytes in all, so a backlog's run does not read back what it just
 * wrote; past it (or after a restart) they are read from disk.
 */
const BODY_CACHE_BYTES = 64 * 1024 * 1024;

const ID = /^job_[a-f0-9]{24}$/;

export class FileJobStore implements JobStore {
  readonly #records = new Map<string, JobRecord>();
  readonly #commits: GroupCommit;
  readonly #bodies = new Map<string, Uint8Array>();
  #bodyBytes = 0;

  private constructor(private readonly dir: string) {
    this.#commits = new GroupCommit(dir);
  }

  /** Opens (creating) the directory and loads every record; unreadable records are logged and skipped. */
  static async open(dataDir: string, logger: Logger): Promise<FileJobStore> {
    const dir = join(dataDir, 'jobs');
    await mkdir(dir, { recursive: true });
    const store = new FileJobStore(dir);
    for (const name of await readdir(dir)) {
      if (name.endsWith('.tmp')) {
        await rm(join(dir, name), { force: true });
        continue;
      }
      if (!name.endsWith('.json') || !ID.test(name.slice(0, -5))) continue;
      try {
        const record = JSON.parse(await readFile(join(dir, name), 'utf8')) as JobRecord;
        store.#records.set(record.id, record);
      } catch (error) {
        logger.error({ file: name, err: error }, 'unreadable job record skipped');
      }
    }
    return store;
  }

  async create(record: JobRecord, body: Uint8Array): Promise<void> {
    // One batch: the body is renamed into place before the record that refers to it.
    await Promise.all([this.#commits.write(`${record.id}.body`, body), this.#commits.write(`${record.id}.json`, JSON.stringify(record))]);
    this.#records.set(record.id, record);
    if (this.#bodyBytes + body.byteLength <= BODY_CACHE_BYTES) {
      // A copy: the caller's bytes may live in a buffer that is reused or transferred.
      this.#bodies.set(record.id, body.slice());
      this.#bodyBytes += body.byteLength;
    }
  }

  has(id: string): boolean {
    return this.#records.has(id);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    return this.#records.get(id);
  }

  async update(id: string, patch: JobPatch, from?: readonly JobStatus[]): Promise<JobRecord | undefined> {
    const current = this.#records.get(id);
    if (current === undefined || (from !== undefined && !from.includes(current.status))) return undefined;
    const next = { ...current, ...patch };
    this.#records.set(id, next);
    if (next.status !== 'running') await this.#commits.write(`${id}.json`, JSON.stringify(next));
    return next;
  }

  /** The job's request body; a cached one is handed out once (a job starts once, or reads it back from disk). */
  async body(id: string): Promise<Uint8Array | undefined> {
    const cached = this.#takeCachedBody(id);
    return cached ?? this.#read(`${id}.body`);
  }

  async putResult(id: string, pdf: Uint8Array): Promise<void> {
    await this.#commits.write(`${id}.pdf`, pdf);
  }

  async result(id: string): Promise<Uint8Array | undefined> {
    return this.#read(`${id}.pdf`);
  }

  async remove(id: string): Promise<void> {
    this.#records.delete(id);
    this.#takeCachedBody(id);
    const names = ['json', 'body', 'pdf'].map((ext) => `${id}.${ext}`);
    await this.#commits.discard(names);
    await Promise.all(names.map((name) => rm(join(this.dir, name), { force: true })));
  }

  /** Every record, for recovery after a restart and for retention sweeps. */
  all(): Iterable<JobRecord> {
    return this.#records.values();
  }

  #takeCachedBody(id: string): Uint8Array | undefined {
    const cached = this.#bodies.get(id);
    if (cached === undefined) return undefined;
    this.#bodies.delete(id);
    this.#bodyBytes -= cached.byteLength;
    return cached;
  }

  async #read(name: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(join(this.dir, name)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
