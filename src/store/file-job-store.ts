// The embedded job store: one journal file under PLATEN_DATA_DIR/jobs
// (journal.ts), appended in group commits, holding every job's record, its
// request body while it may still run, and its result. A job's creation is
// durable (written with O_DSYNC) before the client is told it exists, and
// so is every later change except the move to `running`. Records are also
// held in memory: GET /jobs/{id} reads no disk.
//
// The move to `running` is kept in memory only (the journal still says
// `pending` until the job finishes): after a crash a job recorded `running`
// is run again exactly like a `pending` one (at least once), so writing it
// would buy nothing and cost every job a frame.
//
// Frames: {op:'job', record} (with the request body as data when created),
// {op:'result', id} (the PDF as data), {op:'remove', id}. Reading the file
// back in order rebuilds the store. Once the file is more than twice what
// the live jobs need (and past `compactBytes`), it is rewritten with only
// their latest records, the bodies of unfinished jobs and the results.
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Journal, type KeptFrame, type Place } from './journal.js';
import { TERMINAL, type JobPatch, type JobRecord, type JobStatus, type JobStore } from './jobs.js';
import { importJobFiles } from './job-files-import.js';

/**
 * Request bodies of jobs not yet started are also kept in memory up to this
 * many bytes in all, so a backlog's run does not read back what it just
 * wrote; past it (or after a restart) they are read from the journal.
 */
const BODY_CACHE_BYTES = 64 * 1024 * 1024;
/** A journal smaller than this is never rewritten: reclaiming a few MB is not worth copying the rest. */
const COMPACT_BYTES = 64 * 1024 * 1024;

type JobFrame =
  | { readonly op: 'job'; readonly record: JobRecord }
  | { readonly op: 'result'; readonly id: string }
  | { readonly op: 'remove'; readonly id: string };

export interface FileJobStoreOptions {
  /** The journal is rewritten only once it is at least this large (tests make it small). */
  readonly compactBytes?: number;
}

export class FileJobStore implements JobStore {
  readonly #records = new Map<string, JobRecord>();
  readonly #bodyAt = new Map<string, Place>();
  readonly #resultAt = new Map<string, Place>();
  readonly #bodies = new Map<string, Uint8Array>();
  #bodyBytes = 0;
  #journal!: Journal;
  readonly #compactBytes: number;
  /** The journal size at which the next look at compaction is due. */
  #nextCheck: number;
  #compacting: Promise<void> | undefined;

  private constructor(
    private readonly logger: Logger,
    options: FileJobStoreOptions,
  ) {
    this.#compactBytes = options.compactBytes ?? COMPACT_BYTES;
    this.#nextCheck = this.#compactBytes;
  }

  /** Opens (creating) the journal and loads every job; files of the earlier one-file-per-job layout are moved into it. */
  static async open(dataDir: string, logger: Logger, options: FileJobStoreOptions = {}): Promise<FileJobStore> {
    const dir = join(dataDir, 'jobs');
    await mkdir(dir, { recursive: true });
    const store = new FileJobStore(logger, options);
    const { journal, tornBytes } = await Journal.open(join(dir, 'journal'), (meta, data) => store.#replay(meta as JobFrame, data));
    store.#journal = journal;
    if (tornBytes > 0) logger.warn({ bytes: tornBytes }, 'the job journal ended in a frame never acknowledged (a crash mid-write); it was cut off');
    for (const name of await readdir(dir)) {
      if (name.endsWith('.rewrite')) await rm(join(dir, name), { force: true });
    }
    await importJobFiles(dir, logger, async (record, body, result) => {
      if (store.#records.has(record.id)) return;
      await store.create(record, body ?? new Uint8Array(0));
      if (result !== undefined) await store.putResult(record.id, result);
    });
    store.#nextCheck = Math.max(store.#compactBytes, journal.size);
    return store;
  }

  async create(record: JobRecord, body: Uint8Array): Promise<void> {
    const [bodyAt] = await this.#append([{ meta: { op: 'job', record }, data: body }]);
    this.#records.set(record.id, record);
    if (bodyAt !== undefined) this.#bodyAt.set(record.id, bodyAt);
    if (body.byteLength > 0 && this.#bodyBytes + body.byteLength <= BODY_CACHE_BYTES) {
      // Kept as given (JobStore.create: the body is handed over), so a job's body is copied once, by the route.
      this.#bodies.set(record.id, body);
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
    if (TERMINAL.has(next.status)) {
      // Never to run again: its body is not kept past the next rewrite.
      this.#bodyAt.delete(id);
      this.#takeCachedBody(id);
    }
    if (next.status !== 'running') await this.#append([{ meta: { op: 'job', record: next } }]);
    return next;
  }

  /** The job's request body; a cached one is handed out once (a job starts once, or reads it back). */
  async body(id: string): Promise<Uint8Array | undefined> {
    const cached = this.#takeCachedBody(id);
    if (cached !== undefined) return cached;
    const at = this.#bodyAt.get(id);
    return at === undefined ? undefined : this.#journal.read(at);
  }

  async putResult(id: string, pdf: Uint8Array): Promise<void> {
    const [at] = await this.#append([{ meta: { op: 'result', id }, data: pdf }]);
    if (at !== undefined && this.#records.has(id)) this.#resultAt.set(id, at);
  }

  async complete(id: string, pdf: Uint8Array, completedAt: string): Promise<JobRecord | undefined> {
    const current = this.#records.get(id);
    if (current?.status !== 'running') return undefined;
    const next: JobRecord = { ...current, status: 'completed', completedAt };
    // One append, so one group commit: the result frame before the record that says completed.
    const [at] = await this.#append([{ meta: { op: 'result', id }, data: pdf }, { meta: { op: 'job', record: next } }]);
    // Shown only once durable, and only if nothing (a cancel) changed the job meanwhile: the journal then ends with that change too.
    if (this.#records.get(id) !== current) return undefined;
    this.#records.set(id, next);
    if (at !== undefined) this.#resultAt.set(id, at);
    this.#bodyAt.delete(id);
    this.#takeCachedBody(id);
    return next;
  }

  async result(id: string): Promise<Uint8Array | undefined> {
    const at = this.#resultAt.get(id);
    return at === undefined ? undefined : this.#journal.read(at);
  }

  async remove(id: string): Promise<void> {
    this.#forget(id);
    await this.#append([{ meta: { op: 'remove', id } }]);
  }

  /** Every record, for recovery after a restart and for retention sweeps. */
  all(): Iterable<JobRecord> {
    return this.#records.values();
  }

  /** Waits for writes and a rewrite under way, then closes the journal. */
  async close(): Promise<void> {
    await this.#compacting;
    await this.#journal.close();
  }

  async #append(frames: ReadonlyArray<{ readonly meta: JobFrame; readonly data?: Uint8Array }>): Promise<Array<Place | undefined>> {
    const places = await this.#journal.append(frames);
    if (this.#journal.size >= this.#nextCheck && this.#compacting === undefined) this.#compacting = this.#compact();
    return places;
  }

  /** Rewrites the journal with what the live jobs need, when that is under half of it. */
  async #compact(): Promise<void> {
    try {
      const live = this.#liveBytes();
      if (this.#journal.size > 2 * live) {
        const before = this.#journal.size;
        await this.#journal.rewrite(
          () => this.#kept(),
          (places) => this.#moved(places),
        );
        this.logger.info({ before, after: this.#journal.size }, 'job journal rewritten');
      }
    } catch (error) {
      this.logger.error({ err: error }, 'rewriting the job journal failed; it keeps growing until the next try');
    } finally {
      this.#nextCheck = Math.max(this.#compactBytes, 2 * this.#journal.size);
      this.#compacting = undefined;
    }
  }

  /** Roughly what a rewrite would keep: records, unfinished jobs' bodies, results. */
  #liveBytes(): number {
    let bytes = 0;
    for (const id of this.#records.keys()) bytes += 256 + (this.#bodyAt.get(id)?.length ?? 0) + (this.#resultAt.get(id)?.length ?? 0);
    return bytes;
  }

  #keptIds: Array<{ readonly id: string; readonly kind: 'body' | 'result' }> = [];

  #kept(): KeptFrame[] {
    const frames: KeptFrame[] = [];
    this.#keptIds = [];
    for (const [id, record] of this.#records) {
      const body = this.#bodyAt.get(id);
      frames.push({ meta: { op: 'job', record } satisfies JobFrame, ...(body === undefined ? {} : { data: body }) });
      this.#keptIds.push({ id, kind: 'body' });
      const result = this.#resultAt.get(id);
      if (result !== undefined) {
        frames.push({ meta: { op: 'result', id } satisfies JobFrame, data: result });
        this.#keptIds.push({ id, kind: 'result' });
      }
    }
    return frames;
  }

  /** The rewritten file is current: every kept place moves to the new one (jobs removed meanwhile stay gone). */
  #moved(places: ReadonlyArray<Place | undefined>): void {
    this.#keptIds.forEach(({ id, kind }, i) => {
      const at = places[i];
      if (at === undefined || !this.#records.has(id)) return;
      if (kind === 'result') this.#resultAt.set(id, at);
      else if (this.#bodyAt.has(id)) this.#bodyAt.set(id, at);
    });
    this.#keptIds = [];
  }

  #replay(frame: JobFrame, data: Place | undefined): void {
    if (frame.op === 'remove') return this.#forget(frame.id);
    if (frame.op === 'result') {
      if (data !== undefined && this.#records.has(frame.id)) this.#resultAt.set(frame.id, data);
      return;
    }
    const { record } = frame;
    this.#records.set(record.id, record);
    if (data !== undefined) this.#bodyAt.set(record.id, data);
    if (TERMINAL.has(record.status)) this.#bodyAt.delete(record.id);
  }

  #forget(id: string): void {
    this.#records.delete(id);
    this.#bodyAt.delete(id);
    this.#resultAt.delete(id);
    this.#takeCachedBody(id);
  }

  #takeCachedBody(id: string): Uint8Array | undefined {
    const cached = this.#bodies.get(id);
    if (cached === undefined) return undefined;
    this.#bodies.delete(id);
    this.#bodyBytes -= cached.byteLength;
    return cached;
  }
}
