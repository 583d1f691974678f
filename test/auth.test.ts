// The key store: entries from the environment and a hot-reloaded file.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseKeyEntry } from '../src/auth/key-entry.js';
import { KeyStore } from '../src/auth/key-store.js';
import { createLogger } from '../src/logger.js';
import { KEYS, bearer } from './helpers/keys.js';
import { startTestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const KEY_A = 'svc_live_filea_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const KEY_B = 'svc_live_fileb_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('key entries', () => {
  test('parses key, label, tier and attributes', () => {
    const result = parseKeyEntry(`${KEYS.pro}:acme:pro:rpm=120;sessions=3;tenant=t-1;roles=approver|auditor`);
    assert.ok(result.ok);
    const p = result.record.principal;
    assert.deepEqual(
      { kid: p.kid, label: p.label, tier: p.tier, rpm: p.rpm, sessions: p.sessions, tenant: p.tenant, roles: [...p.roles] },
      { kid: 'pro1', label: 'acme', tier: 'pro', rpm: 120, sessions: 3, tenant: 't-1', roles: ['approver', 'auditor'] },
    );
    assert.equal(result.record.digest.length, 32, 'held as a SHA-256 digest');
  });

  for (const [entry, expected] of [
    [`${KEYS.pro}:acme:pro`, /4 colon-separated parts/],
    ['svc_live_k_short:acme:pro:', /svc_live_\{kid\}_\{secret\}/],
    [`${KEYS.pro}:acme:gold:`, /tier must be core, pro or enterprise/],
    [`${KEYS.pro}:acme:pro:rpm=lots`, /rpm must be a whole number/],
    [`${KEYS.pro}:acme:pro:colour=red`, /unknown attribute "colour"/],
    [`${KEYS.pro}:bad label:pro:`, /label/],
  ] as const) {
    test(`rejects ${entry.slice(entry.indexOf(':'))} with a message that names no secret`, () => {
      const result = parseKeyEntry(entry);
      assert.ok(!result.ok);
      assert.match(result.problem, expected);
      assert.ok(!result.problem.includes('pppppppp'), 'no key material in the message');
    });
  }
});

describe('key file hot reload', () => {
  test('good, bad and revoking files: bad files keep the last good keys', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'platen-keys-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'keys');
    /** Atomic replace, as an operator's deploy tool would do it. */
    const replace = async (text: string) => {
      await writeFile(`${file}.tmp`, text);
      await rename(`${file}.tmp`, file);
    };
    await replace(`# the first client\n${KEY_A}:alpha:core:\n`);
    const s = await startTestServer({ PLATEN_API_KEYS: `${KEYS.core}:env-client:core:`, PLATEN_API_KEYS_FILE: file, PLATEN_API_KEYS_RELOAD_MS: '50' });
    t.after(() => s.close());
    const status = async (key: string) => (await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(key) })).status;
    assert.equal(await status(KEY_A), 200);
    assert.equal(await status(KEY_B), 401);

    const rejectedBefore = () => s.logs.filter((line) => line.msg === 'key file rejected; keeping the last good keys').length;
    // Consecutive bad files differ in their problems: the same problems are logged once only.
    for (const bad of [`${KEY_B}:beta:platinum:\n`, '', `${KEY_B}:beta:core:\n${KEY_B}:beta2:core:\n`, '# only a comment\n', `${KEYS.core}:clash:core:\n`]) {
      const seen = rejectedBefore();
      await replace(bad);
      await waitFor(async () => rejectedBefore() > seen);
      assert.equal(await status(KEY_A), 200, `still served after ${JSON.stringify(bad)}`);
      assert.equal(await status(KEY_B), 401);
    }
    const logged = JSON.stringify(s.logs);
    assert.ok(!logged.includes('bbbbbbbbbbbbbbbb') && !logged.includes('aaaaaaaaaaaaaaaa'), 'no key material in logs');

    await replace(`${KEY_B}:beta:pro:\n`);
    await waitFor(async () => (await status(KEY_B)) === 200);
    assert.equal(await status(KEY_A), 401, 'revoked');

    // A file that disappears is reported once, not on every check.
    const unreadable = () => s.logs.filter((line) => line.msg === 'key file not loaded; keeping the last good keys').length;
    await rm(file);
    await waitFor(async () => unreadable() === 1);
    assert.equal(await status(KEY_B), 200, 'the last good keys stay active');
  });

  test('a key file that stays missing is reported once, however many reloads run', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'platen-keys-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'keys');
    await writeFile(file, `${KEY_A}:alpha:core:\n`);
    const lines: Array<{ msg?: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as { msg?: string });
        done();
      },
    });
    // No timer reloads during the test (an hour apart): the test runs each reload itself, so it knows how many ran.
    const store = await KeyStore.open({ entries: undefined, file, reloadMs: 3_600_000, logger: createLogger('info', sink) });
    t.after(() => store.close());
    await rm(file);
    for (let i = 0; i < 3; i++) await store.reload();
    assert.equal(lines.filter((line) => line.msg === 'key file not loaded; keeping the last good keys').length, 1);
    assert.equal(store.authenticate(`Bearer ${KEY_A}`)?.label, 'alpha', 'the last good keys stay active');
  });

  test('a missing key file stops start-up with a clear message', async () => {
    await assert.rejects(
      startTestServer({ PLATEN_API_KEYS: '', PLATEN_API_KEYS_FILE: '/nonexistent/platen-keys' }),
      /nonexistent\/platen-keys is invalid:[\s\S]*ENOENT/,
    );
  });

  test('keys from the environment and the file both work', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'platen-keys-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'keys');
    await writeFile(file, `${KEY_A}:alpha:core:\n`);
    const s = await startTestServer({ PLATEN_API_KEYS_FILE: file });
    t.after(() => s.close());
    assert.equal((await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEY_A) })).status, 200);
    assert.equal((await fetch(`${s.base}/api/v1/capabilities`, { headers: bearer(KEYS.enterprise) })).status, 200);
  });
});
