// Group commits of the embedded job store: writes of one moment share one
// batch, a name written twice keeps the newer bytes, writes arriving during
// a batch go in the next, discarded writes never land, no temporary is left.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GroupCommit } from '../../src/store/group-commit.js';

const scratch = () => mkdtemp(join(tmpdir(), 'platen-commit-'));

describe('group commit', () => {
  test('fifty writes asked for at once are one batch, each durable in its file when its promise settles', async () => {
    const dir = await scratch();
    const commits = new GroupCommit(dir);
    await Promise.all(Array.from({ length: 50 }, (_, i) => commits.write(`f${i}.json`, `{"n":${i}}`)));
    assert.equal(commits.batches, 1);
    const names = (await readdir(dir)).sort();
    assert.equal(names.length, 50);
    assert.ok(names.every((name) => name.endsWith('.json')), 'no temporary file left');
    assert.equal(await readFile(join(dir, 'f7.json'), 'utf8'), '{"n":7}');
  });

  test('a name written twice before its batch keeps the newer bytes; writes during a batch go in the next', async () => {
    const dir = await scratch();
    const commits = new GroupCommit(dir);
    const first = commits.write('a.json', 'old');
    const second = commits.write('a.json', 'new');
    await Promise.all([first, second]);
    assert.equal(await readFile(join(dir, 'a.json'), 'utf8'), 'new');
    assert.equal(commits.batches, 1);
    const during = commits.write('b.json', '1');
    const later = Promise.resolve().then(() => commits.write('c.json', '2'));
    await Promise.all([during, later]);
    assert.equal(await readFile(join(dir, 'c.json'), 'utf8'), '2');
  });

  test('discarded writes are not made, and their writers are not left waiting', async () => {
    const dir = await scratch();
    const commits = new GroupCommit(dir);
    const kept = commits.write('keep.json', 'k');
    const dropped = commits.write('drop.json', 'd');
    await commits.discard(['drop.json']);
    await Promise.all([kept, dropped]);
    assert.deepEqual(await readdir(dir), ['keep.json']);
  });
});
