// Jobs kept by earlier versions as three files each (<id>.json, .body, .pdf)
// under PLATEN_DATA_DIR/jobs are moved into the journal when the store
// opens: each job is handed over, and its files are removed only once the
// journal holds it durably. Unreadable records are logged and left in place.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { TERMINAL, type JobRecord } from './jobs.js';

const RECORD = /^(job_[a-f0-9]{24})\.json$/;

export async function importJobFiles(
  dir: string,
  logger: Logger,
  keep: (record: JobRecord, body: Uint8Array | undefined, result: Uint8Array | undefined) => Promise<void>,
): Promise<void> {
  const names = await readdir(dir);
  for (const name of names) {
    if (name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
  }
  for (const name of names) {
    const id = RECORD.exec(name)?.[1];
    if (id === undefined) continue;
    let record: JobRecord;
    try {
      record = JSON.parse(await readFile(join(dir, name), 'utf8')) as JobRecord;
    } catch (error) {
      logger.error({ file: name, err: error }, 'unreadable job record skipped');
      continue;
    }
    const body = TERMINAL.has(record.status) ? undefined : await optional(join(dir, `${id}.body`));
    const result = await optional(join(dir, `${id}.pdf`));
    await keep(record, body, result);
    await Promise.all(['body', 'pdf', 'json'].map((ext) => rm(join(dir, `${id}.${ext}`), { force: true })));
  }
}

async function optional(path: string): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
