// Key files named by the configuration are read before the server listens: a
// missing, unreadable or wrong PLATEN_SIGNING_P12_FILE (or its password) or
// PLATEN_ATTESTATION_KEY_FILE stops start-up with exit code 2 and a message
// naming the variable, never the password or the key; before, the server
// started and answered 500 on the first sign or ai-certify request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeIdentities } from './helpers/signing.js';
import { testEnv } from './helpers/server.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

/** Runs the server with `env`; it must exit on its own (a server that listens is killed by the bound and fails the test). */
async function startFailure(env: Record<string, string>): Promise<{ code: number; stderr: string; stdout: string }> {
  const outcome = await run(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...testEnv({ PLATEN_WORKERS: '1', ...env }) }, timeout: 60_000 }).then(
    (done) => ({ code: 0, stderr: done.stderr, stdout: done.stdout }),
    (error: { code: number; stderr: string; stdout: string }) => error,
  );
  return { code: outcome.code, stderr: outcome.stderr, stdout: outcome.stdout };
}

test('broken key files stop start-up, naming the variable and never the secret', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'platen-startup-keys-'));
  const identities = await makeIdentities();
  t.after(() => Promise.all([rm(dir, { recursive: true, force: true }), identities.dispose()]));
  const rsaKey = join(dir, 'rsa.pem');
  await run('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024', '-out', rsaKey]);
  const notPem = join(dir, 'not-a-key.pem');
  await writeFile(notPem, 'hello\n');
  const password = 'not-the-password-8f3e1c';

  await t.test('a wrong PKCS#12 password and an RSA attestation key: both named, exit 2', async () => {
    const failure = await startFailure({ PLATEN_SIGNING_P12_FILE: identities.ec.p12File, PLATEN_SIGNING_P12_PASSWORD: password, PLATEN_ATTESTATION_KEY_FILE: rsaKey });
    assert.equal(failure.code, 2, failure.stderr);
    assert.match(failure.stderr, /PLATEN_SIGNING_P12_FILE[^\n]*could not be opened with this password/);
    assert.match(failure.stderr, /PLATEN_ATTESTATION_KEY_FILE holds a rsa key; certificates are signed with Ed25519/);
    assert.doesNotMatch(failure.stderr + failure.stdout, /"msg":"listening"/);
    assert.ok(!(failure.stderr + failure.stdout).includes(password), 'the password never appears');
  });

  await t.test('a missing PKCS#12 file and an attestation key that is not PEM', async () => {
    const failure = await startFailure({ PLATEN_SIGNING_P12_FILE: join(dir, 'absent.p12'), PLATEN_SIGNING_P12_PASSWORD: password, PLATEN_ATTESTATION_KEY_FILE: notPem });
    assert.equal(failure.code, 2, failure.stderr);
    assert.match(failure.stderr, /PLATEN_SIGNING_P12_FILE \([^)]*absent\.p12\) cannot be read \(ENOENT\)/);
    assert.match(failure.stderr, /PLATEN_ATTESTATION_KEY_FILE is not a PEM private key/);
  });

  await t.test('a PKCS#12 file that is not PKCS#12, and an attestation key path that cannot be read', async () => {
    // A directory: unreadable as a file for every user, root included (chmod 000 is not, and tests may run as root).
    const failure = await startFailure({ PLATEN_SIGNING_P12_FILE: notPem, PLATEN_ATTESTATION_KEY_FILE: dir });
    assert.equal(failure.code, 2, failure.stderr);
    assert.match(failure.stderr, /PLATEN_SIGNING_P12_FILE[^\n]*is not a PKCS#12 \(\.p12\/\.pfx\) file/);
    assert.match(failure.stderr, /PLATEN_ATTESTATION_KEY_FILE cannot be read \(EISDIR\)/);
  });

  await t.test('a password without a PKCS#12 file', async () => {
    const failure = await startFailure({ PLATEN_SIGNING_P12_PASSWORD: password });
    assert.equal(failure.code, 2, failure.stderr);
    assert.match(failure.stderr, /PLATEN_SIGNING_P12_PASSWORD is set without PLATEN_SIGNING_P12_FILE/);
    assert.ok(!failure.stderr.includes(password));
  });
});
