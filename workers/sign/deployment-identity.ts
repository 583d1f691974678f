// The deployment's own signing identity (PLATEN_SIGNING_P12_FILE /
// PLATEN_SIGNING_P12_PASSWORD), read once per worker thread: a PKCS#12
// file's key derivation costs ~ms per read. The sign task uses it when a
// request brings no certificate; the start-up check (workers/deployment-check.ts)
// reads it before the server listens, so a broken file stops start-up
// instead of answering 500 on the first signature.
import { readFile } from 'node:fs/promises';
import { readPkcs12, type SigningIdentity } from './identity.js';

let cached: { readonly file: string; readonly identity: Promise<SigningIdentity> } | undefined;

export function deploymentIdentity(file: string, password: string): Promise<SigningIdentity> {
  if (cached?.file !== file) {
    const identity = readFile(file).then((bytes) => readPkcs12(bytes, password));
    // Not cached when broken: a fixed file is read again.
    identity.catch(() => { cached = undefined; });
    cached = { file, identity };
  }
  return cached.identity;
}
