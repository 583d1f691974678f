// A throwaway signing identity for the benchmarks that sign (docops.ts,
// large-body-operations.ts): made with openssl each run, so no key is
// committed, and removed from disk once read.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A throwaway RSA 2048 identity, as the sign request's `certificate` (base64 PKCS#12 and its password). */
export async function signingCertificate(): Promise<{ p12: string; password: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'platen-bench-signer-'));
  try {
    const [key, cert, p12] = ['key.pem', 'cert.pem', 'id.p12'].map((file) => join(dir, file)) as [string, string, string];
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=Platen bench signer', '-days', '2', '-keyout', key, '-out', cert]);
    await run('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-passout', 'pass:bench', '-out', p12]);
    return { p12: (await readFile(p12)).toString('base64'), password: 'bench' };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
