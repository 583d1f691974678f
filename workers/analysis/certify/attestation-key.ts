// The Ed25519 key that signs AI-readiness certificates, loaded in the worker
// (signing is CPU work, and the main thread never holds the private key):
// - PLATEN_ATTESTATION_KEY_FILE: a PKCS#8 PEM private key (what `openssl
//   genpkey -algorithm ed25519` writes). PEM rather than JWK because every
//   key tool writes it, and a JWK private key file is easy to confuse with
//   the public JWK the responses carry.
// - Without one: a key generated once and kept in PLATEN_DATA_DIR as
//   `attestation-key.pem` (mode 0600). Two threads, or two nodes sharing the
//   directory, may start at once: each writes its candidate to a private
//   temporary file and hard-links it to the final name, which fails if the
//   name exists (link(2) is atomic and never replaces), so exactly one key
//   wins and every thread then reads that one.
// The key is read once per thread. Nothing here logs, and errors never
// carry the key's bytes.
import { generateKeyPairSync, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

export interface AttestationKey {
  readonly privateKey: KeyObject;
  /** The public key as a JWK: kty OKP, crv Ed25519, x, with kid (its RFC 7638 thumbprint), alg and use. */
  readonly jwk: JWK;
  readonly kid: string;
}

export const GENERATED_KEY_NAME = 'attestation-key.pem';

export class AttestationKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AttestationKeyError';
  }
}

let cached: { readonly source: string; readonly key: Promise<AttestationKey> } | undefined;

/** The key from `keyFile`, else the one kept in `dataDir` (generated the first time). */
export function attestationKey(keyFile: string | undefined, dataDir: string): Promise<AttestationKey> {
  const source = keyFile ?? `generated:${dataDir}`;
  if (cached?.source !== source) {
    const key = keyFile === undefined ? generatedKey(dataDir) : fileKey(keyFile);
    // A broken key file is the operator's to fix (500); not cached, so a fixed file is read again.
    key.catch(() => {
      cached = undefined;
    });
    cached = { source, key };
  }
  return cached.key;
}

async function fileKey(file: string): Promise<AttestationKey> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    throw new AttestationKeyError(`PLATEN_ATTESTATION_KEY_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return fromPem(pem, 'PLATEN_ATTESTATION_KEY_FILE');
}

async function generatedKey(dataDir: string): Promise<AttestationKey> {
  const file = join(dataDir, GENERATED_KEY_NAME);
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) return fromPem(existing, file);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync('ed25519');
  const candidate = join(dataDir, `.${GENERATED_KEY_NAME}.${randomUUID()}`);
  await writeFile(candidate, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  try {
    await link(candidate, file);
  } catch (error) {
    // Another thread or node linked its key first: that one is the key.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(candidate).catch(() => undefined);
  }
  return fromPem(await readFile(file, 'utf8'), file);
}

async function fromPem(pem: string, where: string): Promise<AttestationKey> {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new AttestationKeyError(`${where} is not a PEM private key`);
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new AttestationKeyError(`${where} holds a ${privateKey.asymmetricKeyType ?? 'unknown'} key; certificates are signed with Ed25519`);
  const publicJwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint({ kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x } as JWK);
  return { privateKey, kid, jwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, kid, alg: 'EdDSA', use: 'sig' } };
}
