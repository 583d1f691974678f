// The embedded job store: one directory under PLATEN_DATA_DIR, three files a
// job (record, body, result), each written atomically (a temporary file,
// fsync, rename), so an accepted job survives a crash and a reader never sees
// half a file. Records are also held in memory: GET /jobs/{id} reads no disk.
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { JobPatch, JobRecord, JobStatus, JobStore } from './jobs.js';

const ID = /^job_[a-f0-9]{24}$/;

export class FileJobStore implements JobStore {
  readonly #records = new Map<string, JobRecord>();
  /** Temporary names are unique per write: two updates of one record may overlap. */
  #writes = 0;

  private constructor(private readonly dir: string) {}

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
    await this.#write(`${record.id}.body`, body);
    await this.#write(`${record.id}.json`, JSON.stringify(record));
    this.#records.set(record.id, record);
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
    await this.#write(`${id}.json`, JSON.stringify(next));
    return next;
  }

  async body(id: string): Promise<Uint8Array | undefined> {
    return this.#read(`${id}.body`);
  }

  async putResult(id: string, pdf: Uint8Array): Promise<void> {
    await this.#write(`${id}.pdf`, pdf);
  }

  async result(id: string): Promise<Uint8Array | undefined> {
    return this.#read(`${id}.pdf`);
  }

  async remove(id: string): Promise<void> {
    this.#records.delete(id);
    await Promise.all(['json', 'body', 'pdf'].map((ext) => rm(join(this.dir, `${id}.${ext}`), { force: true })));
  }

  /** Every record, for recovery after a restart and for retention sweeps. */
  all(): Iterable<JobRecord> {
    return this.#records.values();
  }

  async #read(name: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(join(this.dir, name)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async #write(name: string, data: string | Uint8Array): Promise<void> {
    const path = join(this.dir, name);
    const temporary = `${path}.${process.pid}.${++this.#writes}.tmp`;
    const file = await open(temporary, 'w');
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  }
}
