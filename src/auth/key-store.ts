// The key store: entries from PLATEN_API_KEYS plus a hot-reloaded
// PLATEN_API_KEYS_FILE. Lookup is by kid; the SHA-256 digest of the presented
// key is compared with crypto.timingSafeEqual on fixed-length digests, and an
// unknown kid is compared against a dummy digest so that "unknown kid" and
// "wrong secret" take the same time (reliability plan, case 43).
import { readFile, stat } from 'node:fs/promises';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { digestKey, keyId, parseKeyEntry, type KeyRecord, type Principal } from './key-entry.js';

export type { Principal } from './key-entry.js';

const DUMMY_DIGEST = digestKey(randomBytes(32).toString('hex'));

export interface KeyStoreOptions {
  /** Comma-separated entries (PLATEN_API_KEYS). */
  readonly entries: string | undefined;
  /** File of entries, one a line, # comments (PLATEN_API_KEYS_FILE). */
  readonly file: string | undefined;
  readonly reloadMs: number;
  readonly logger: Logger;
}

export class KeyStore {
  #fromEnv: Map<string, KeyRecord>;
  #fromFile = new Map<string, KeyRecord>();
  #fileStamp = '';
  #fileLoaded = false;
  #timer: NodeJS.Timeout | undefined;
  /** The last problems logged: a file that stays bad is reported once, not on every tick. */
  #lastProblems = '';
  #reloading: Promise<void> | undefined;

  private constructor(
    private readonly options: KeyStoreOptions,
    fromEnv: Map<string, KeyRecord>,
  ) {
    this.#fromEnv = fromEnv;
  }

  /** Builds the store; a bad PLATEN_API_KEYS or a missing/bad file at start-up is fatal. */
  static async open(options: KeyStoreOptions): Promise<KeyStore> {
    const fromEnv = parseEntries((options.entries ?? '').split(','), 'PLATEN_API_KEYS entry');
    if (!fromEnv.ok) throw new Error(`PLATEN_API_KEYS is invalid:\n  - ${fromEnv.problems.join('\n  - ')}`);
    const store = new KeyStore(options, fromEnv.records);
    if (options.file !== undefined) {
      const problems = await store.#reload();
      if (problems !== undefined) throw new Error(`${options.file} is invalid:\n  - ${problems.join('\n  - ')}`);
      store.#timer = setInterval(() => void store.reload(), options.reloadMs);
      store.#timer.unref();
    }
    return store;
  }

  get size(): number {
    return this.#fromEnv.size + this.#fromFile.size;
  }

  /** Ready when the file (if any) has been loaded at least once and some key exists. */
  get ready(): boolean {
    return this.size > 0 && (this.options.file === undefined || this.#fileLoaded);
  }

  /** Returns the principal of a valid key, or undefined. Never throws. */
  authenticate(authorization: string): Principal | undefined {
    // RFC 6750 section 2.1: the scheme is case-insensitive, one space, then the token.
    if (authorization.length < 8 || authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
    const key = authorization.slice(7).trim();
    const kid = keyId(key);
    const record = kid === undefined ? undefined : (this.#fromEnv.get(kid) ?? this.#fromFile.get(kid));
    const presented = digestKey(key);
    const matches = timingSafeEqual(presented, record?.digest ?? DUMMY_DIGEST);
    return matches && record !== undefined ? record.principal : undefined;
  }

  /** A principal of the client with this label (keys sharing a label are one client), or undefined once none is left. */
  byLabel(label: string): Principal | undefined {
    for (const records of [this.#fromEnv, this.#fromFile]) {
      for (const { principal } of records.values()) if (principal.label === label) return principal;
    }
    return undefined;
  }

  /** Re-reads the key file if it changed. A bad file keeps the last good keys and logs why. */
  async reload(): Promise<void> {
    // Serialise reloads: the interval may fire while a slow read is still going.
    this.#reloading ??= this.#reload().then(
      () => undefined,
      () => undefined,
    );
    const running = this.#reloading;
    await running;
    if (this.#reloading === running) this.#reloading = undefined;
  }

  close(): void {
    clearInterval(this.#timer);
  }

  #report(problems: readonly string[], log: () => void): void {
    const text = problems.join('\n');
    if (text === this.#lastProblems) return;
    this.#lastProblems = text;
    log();
  }

  async #reload(): Promise<string[] | undefined> {
    const file = this.options.file;
    if (file === undefined) return undefined;
    const log = this.options.logger;
    let text: string;
    try {
      const info = await stat(file);
      const stamp = `${info.ino}:${info.size}:${info.mtimeMs}`;
      if (stamp === this.#fileStamp) return undefined;
      text = await readFile(file, 'utf8');
      this.#fileStamp = stamp;
    } catch (error) {
      const problem = `cannot read the key file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
      this.#report([problem], () => log.error({ file, problems: [problem] }, 'key file not loaded; keeping the last good keys'));
      this.#fileStamp = '';
      return [problem];
    }
    const lines = text.split(/\r?\n/).map((line) => line.replace(/#.*$/, '').trim());
    const numbered = lines.map((line, index) => [index + 1, line] as const).filter(([, line]) => line.length > 0);
    const parsed = parseEntries(
      numbered.map(([, line]) => line),
      (index) => `line ${numbered[index]?.[0]}`,
    );
    const problems = parsed.ok ? [] : parsed.problems;
    if (parsed.ok && parsed.records.size === 0) problems.push('the file holds no key; an empty key file would lock every client out');
    if (parsed.ok) {
      // Which of two entries for one kid wins would be a guess; refuse instead.
      for (const kid of parsed.records.keys()) if (this.#fromEnv.has(kid)) problems.push(`key ${kid} is also set in PLATEN_API_KEYS`);
      problems.push(...tenantConflicts([...this.#fromEnv.values(), ...parsed.records.values()]));
    }
    if (problems.length > 0) {
      this.#report(problems, () => log.error({ file, problems }, 'key file rejected; keeping the last good keys'));
      return problems;
    }
    this.#lastProblems = '';
    const previous = this.#fromFile.size;
    this.#fromFile = parsed.ok ? parsed.records : this.#fromFile;
    this.#fileLoaded = true;
    log.info({ file, keys: this.#fromFile.size, previous }, 'key file loaded');
    return undefined;
  }
}

type ParsedEntries = { ok: true; records: Map<string, KeyRecord> } | { ok: false; problems: string[] };

function parseEntries(entries: readonly string[], where: string | ((index: number) => string)): ParsedEntries {
  const records = new Map<string, KeyRecord>();
  const problems: string[] = [];
  entries.forEach((raw, index) => {
    const entry = raw.trim();
    if (entry.length === 0) return;
    const place = typeof where === 'string' ? `${where} ${index + 1}` : where(index);
    const result = parseKeyEntry(entry);
    if (!result.ok) {
      problems.push(`${place}: ${result.problem}`);
    } else if (records.has(result.record.principal.kid)) {
      problems.push(`${place}: key ${result.record.principal.kid} appears twice`);
    } else {
      records.set(result.record.principal.kid, result.record);
    }
  });
  if (problems.length === 0) problems.push(...tenantConflicts([...records.values()]));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, records };
}

/**
 * Keys that share a label are one client, and a client's jobs, sessions and
 * rate limit are keyed by its label: a label spanning two tenants would let
 * one tenant's key reach another tenant's jobs in high-control mode. So every
 * key of a label must carry the same tenant attribute (or none), in every mode.
 */
function tenantConflicts(records: readonly KeyRecord[]): string[] {
  const first = new Map<string, Principal>();
  const problems: string[] = [];
  for (const { principal } of records) {
    const seen = first.get(principal.label);
    if (seen === undefined) first.set(principal.label, principal);
    else if (seen.tenant !== principal.tenant) {
      problems.push(`keys ${seen.kid} and ${principal.kid} share the label "${principal.label}" but not the tenant attribute; keys of one client must belong to one tenant`);
    }
  }
  return problems;
}
