// The embedded job store's journal (src/store/journal.ts) and the store on
// it (src/store/file-job-store.ts): frames asked for at once share one
// batch, a torn tail is cut off on opening, a rewrite keeps only what live
// jobs need, and everything reads back the same after reopening; jobs kept
// as files by earlier versions are moved in.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { constants } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { FileJobStore } from '../../src/store/file-job-store.js';
import { Journal, type Place } from '../../src/store/journal.js';
import type { JobRecord } from '../../src/store/jobs.js';

const scratch = () => mkdtemp(join(tmpdir(), 'platen-journal-'));
const silent = pino({ level: 'silent' });

function job(n: number, status: JobRecord['status'] = 'pending'): JobRecord {
  const id = `job_${n.toString(16).padStart(24, '0')}`;
  return { id, owner: 'a', status, createdAt: new Date(0).toISOString(), startedAt: null, completedAt: null, error: null, idempotency: null };
}

async function reopen(path: string): Promise<{ journal: Journal; frames: Array<{ meta: unknown; data: Place | undefined }>; tornBytes: number }> {
  const frames: Array<{ meta: unknown; data: Place | undefined }> = [];
  const { journal, tornBytes } = await Journal.open(path, (meta, data) => frames.push({ meta, data }));
  return { journal, frames, tornBytes };
}

/** The open flags (proc(5) fdinfo, octal) of this process's descriptors of `path`. */
async function openFlags(path: string): Promise<number[]> {
  const flags: number[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target !== path) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8');
    flags.push(Number.parseInt(/^flags:\s*([0-7]+)/m.exec(info)?.[1] ?? '0', 8));
  }
  return flags;
}

describe('journal', () => {
  test('the file is written with O_DSYNC (each batch durable when its writev returns, no separate fdatasync), also after a rewrite', async () => {
    const path = join(await scratch(), 'journal');
    const { journal } = await reopen(path);
    await journal.append([{ meta: 'a', data: Buffer.from('bytes') }]);
    const before = await openFlags(path);
    assert.equal(before.length, 1);
    assert.equal((before[0] as number) & constants.O_DSYNC, constants.O_DSYNC);
    await journal.rewrite(() => [{ meta: 'b' }], () => undefined);
    const after = await openFlags(path);
    assert.equal(after.length, 1);
    assert.equal((after[0] as number) & constants.O_DSYNC, constants.O_DSYNC);
    await journal.close();
  });

  test('fifty appends asked for at once are one batch; each reads back, in order, after reopening', async () => {
    const path = join(await scratch(), 'journal');
    const { journal } = await reopen(path);
    const places = await Promise.all(Array.from({ length: 50 }, (_, i) => journal.append([{ meta: { n: i }, data: Buffer.from(`data ${i}`) }])));
    assert.equal(journal.batches, 1);
    assert.equal(Buffer.from(await journal.read(places[7]?.[0] as Place)).toString(), 'data 7');
    await journal.close();
    const again = await reopen(path);
    assert.equal(again.tornBytes, 0);
    assert.deepEqual(
      again.frames.map((f) => f.meta),
      Array.from({ length: 50 }, (_, i) => ({ n: i })),
    );
    assert.equal(Buffer.from(await again.journal.read(again.frames[49]?.data as Place)).toString(), 'data 49');
    await again.journal.close();
  });

  test('appends made while a batch is written go in the next one', async () => {
    const { journal } = await reopen(join(await scratch(), 'journal'));
    const first = journal.append([{ meta: 1 }]);
    const later = Promise.resolve().then(() => new Promise((resolve) => setImmediate(resolve))).then(() => journal.append([{ meta: 2 }]));
    await Promise.all([first, later]);
    assert.equal(journal.batches, 2);
    await journal.close();
  });

  test('a torn tail (a crash mid-write) is cut off on opening; the frames before it stay', async () => {
    const path = join(await scratch(), 'journal');
    const { journal } = await reopen(path);
    await journal.append([{ meta: 'kept', data: Buffer.from('bytes') }]);
    await journal.close();
    const whole = (await stat(path)).size;
    // Half a frame: a header that promises more than follows.
    const header = Buffer.alloc(12);
    header.writeUInt32LE(10, 0);
    header.writeUInt32LE(1000, 4);
    await appendFile(path, Buffer.concat([header, Buffer.from('{"x":')]));
    const again = await reopen(path);
    assert.deepEqual(
      again.frames.map((f) => f.meta),
      ['kept'],
    );
    assert.equal(again.tornBytes, 17);
    assert.equal((await stat(path)).size, whole);
    await again.journal.append([{ meta: 'after' }]);
    await again.journal.close();
    const last = await reopen(path);
    assert.deepEqual(
      last.frames.map((f) => f.meta),
      ['kept', 'after'],
    );
    await last.journal.close();
  });

  test('a frame whose bytes do not match its CRC ends the file there', async () => {
    const path = join(await scratch(), 'journal');
    const { journal } = await reopen(path);
    await journal.append([{ meta: 'one' }, { meta: 'two', data: Buffer.from('abc') }]);
    await journal.close();
    const { size } = await stat(path);
    const { open } = await import('node:fs/promises');
    const file = await open(path, 'r+');
    await file.write(Buffer.from('x'), 0, 1, size - 1);
    await file.close();
    const again = await reopen(path);
    assert.deepEqual(
      again.frames.map((f) => f.meta),
      ['one'],
    );
    await again.journal.close();
  });
});

describe('file job store', () => {
  test('jobs, bodies, updates and results read back the same after reopening; removed jobs stay gone', async () => {
    const dataDir = await scratch();
    const store = await FileJobStore.open(dataDir, silent);
    await Promise.all([store.create(job(1), Buffer.from('body one')), store.create(job(2), Buffer.from('body two')), store.create(job(3), Buffer.from('three'))]);
    await store.update(job(1).id, { status: 'running' });
    await store.putResult(job(1).id, Buffer.from('%PDF one'));
    await store.update(job(1).id, { status: 'completed', completedAt: new Date(1).toISOString() }, ['running']);
    await store.remove(job(3).id);
    await store.close();

    const again = await FileJobStore.open(dataDir, silent);
    assert.equal((await again.get(job(1).id))?.status, 'completed');
    assert.equal(Buffer.from((await again.result(job(1).id)) as Uint8Array).toString(), '%PDF one');
    assert.equal((await again.get(job(2).id))?.status, 'pending');
    assert.equal(Buffer.from((await again.body(job(2).id)) as Uint8Array).toString(), 'body two');
    assert.equal(await again.get(job(3).id), undefined);
    assert.equal(await again.body(job(1).id), undefined, 'a finished job keeps no body');
    await again.close();
  });

  test('complete writes the result and the record in one batch; a cancel made meanwhile wins, in memory and after reopening', async () => {
    const dataDir = await scratch();
    const store = await FileJobStore.open(dataDir, silent);
    await Promise.all([store.create(job(1), Buffer.from('a')), store.create(job(2), Buffer.from('b'))]);
    await store.update(job(1).id, { status: 'running' });
    await store.update(job(2).id, { status: 'running' });
    const done = await store.complete(job(1).id, Buffer.from('%PDF done'), new Date(1).toISOString());
    assert.equal(done?.status, 'completed');
    assert.equal(Buffer.from((await store.result(job(1).id)) as Uint8Array).toString(), '%PDF done');
    const completing = store.complete(job(2).id, Buffer.from('%PDF late'), new Date(2).toISOString());
    const cancelled = await store.update(job(2).id, { status: 'cancelled' }, ['pending', 'running']);
    assert.equal(cancelled?.status, 'cancelled');
    assert.equal(await completing, undefined);
    assert.equal((await store.get(job(2).id))?.status, 'cancelled');
    assert.equal(await store.complete(job(2).id, Buffer.from('%PDF'), new Date(3).toISOString()), undefined, 'only a running job completes');
    await store.close();
    const again = await FileJobStore.open(dataDir, silent);
    assert.equal((await again.get(job(1).id))?.status, 'completed');
    assert.equal((await again.get(job(2).id))?.status, 'cancelled');
    await again.close();
  });

  test('the move to running is not written: after a restart the job is pending again', async () => {
    const dataDir = await scratch();
    const store = await FileJobStore.open(dataDir, silent);
    await store.create(job(1), Buffer.from('b'));
    await store.update(job(1).id, { status: 'running', startedAt: new Date(1).toISOString() });
    await store.close();
    const again = await FileJobStore.open(dataDir, silent);
    assert.equal((await again.get(job(1).id))?.status, 'pending');
    await again.close();
  });

  test('once mostly dead, the journal is rewritten with what live jobs need, and they still read back', async () => {
    const dataDir = await scratch();
    const path = join(dataDir, 'jobs', 'journal');
    const store = await FileJobStore.open(dataDir, silent, { compactBytes: 64 * 1024 });
    const big = Buffer.alloc(16 * 1024, 7);
    await store.create(job(100), Buffer.from('a live body'));
    await store.create(job(101), Buffer.from('x'));
    await store.putResult(job(101).id, Buffer.from('%PDF live'));
    await store.update(job(101).id, { status: 'completed' });
    for (let i = 0; i < 8; i++) {
      await store.create(job(i), big);
      await store.remove(job(i).id);
    }
    // The rewrite runs after the append that crossed the threshold; one more append waits for it.
    await store.create(job(102), Buffer.from('after'));
    await store.close();
    const size = (await stat(path)).size;
    assert.ok(size < 24 * 1024, `rewritten to the live jobs (${size} bytes, against 128 KiB appended)`);
    const again = await FileJobStore.open(dataDir, silent);
    assert.equal(Buffer.from((await again.body(job(100).id)) as Uint8Array).toString(), 'a live body');
    assert.equal(Buffer.from((await again.result(job(101).id)) as Uint8Array).toString(), '%PDF live');
    assert.equal(Buffer.from((await again.body(job(102).id)) as Uint8Array).toString(), 'after');
    assert.equal(await again.get(job(3).id), undefined);
    assert.deepEqual((await readdir(join(dataDir, 'jobs'))).sort(), ['journal']);
    await again.close();
  });

  test('jobs kept as three files each by earlier versions are moved into the journal', async () => {
    const dataDir = await scratch();
    const dir = join(dataDir, 'jobs');
    await mkdir(dir, { recursive: true });
    const done = job(1, 'completed');
    await writeFile(join(dir, `${done.id}.json`), JSON.stringify(done));
    await writeFile(join(dir, `${done.id}.body`), 'old body');
    await writeFile(join(dir, `${done.id}.pdf`), '%PDF old');
    const waiting = job(2);
    await writeFile(join(dir, `${waiting.id}.json`), JSON.stringify(waiting));
    await writeFile(join(dir, `${waiting.id}.body`), 'waiting body');
    await writeFile(join(dir, `${waiting.id}.json.123.4.tmp`), 'half');
    const store = await FileJobStore.open(dataDir, silent);
    assert.equal(Buffer.from((await store.result(done.id)) as Uint8Array).toString(), '%PDF old');
    assert.equal(Buffer.from((await store.body(waiting.id)) as Uint8Array).toString(), 'waiting body');
    assert.deepEqual(await readdir(dir), ['journal']);
    await store.close();
  });
});
