// A signer's identity from a PKCS#12 file: the private key and its
// certificate (plus any chain certificates in the file). PKI.js reads the
// PFX with WebCrypto, so the PBES2/AES-256 files OpenSSL 3 writes by default
// work; the legacy RC2/3DES encryption (`openssl pkcs12 -legacy`) does not,
// and says so.
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import * as pkijs from 'pkijs';

export interface SigningIdentity {
  readonly key: KeyObject;
  /** The certificate whose public key matches `key`. */
  readonly certificate: pkijs.Certificate;
  readonly certificateDer: Uint8Array;
  /** Every certificate of the file, the signer's first. */
  readonly chain: readonly pkijs.Certificate[];
}

/** Why a PKCS#12 file could not give an identity; the caller turns it into a 422 naming its source. */
export class IdentityError extends Error {
  override readonly name = 'IdentityError';
}

interface Decryptable {
  parseInternalValues(parameters: { password: ArrayBuffer }): Promise<void>;
}

const SHROUDED_KEY_BAG = '1.2.840.113549.1.12.10.1.2';
const KEY_BAG = '1.2.840.113549.1.12.10.1.1';
const CERT_BAG = '1.2.840.113549.1.12.10.1.3';
const X509_CERT = '1.2.840.113549.1.9.22.1';

export async function readPkcs12(der: Uint8Array, password: string): Promise<SigningIdentity> {
  const secret = new TextEncoder().encode(password);
  let pfx: pkijs.PFX;
  try {
    pfx = pkijs.PFX.fromBER(copy(der));
  } catch {
    throw new IdentityError('is not a PKCS#12 (.p12/.pfx) file');
  }
  const keys: Uint8Array[] = [];
  const certificates: pkijs.Certificate[] = [];
  try {
    await pfx.parseInternalValues({ password: secret.buffer as ArrayBuffer, checkIntegrity: true });
    const authenticatedSafe = pfx.parsedValue?.authenticatedSafe;
    if (authenticatedSafe === undefined) throw new IdentityError('holds no authenticated safe');
    await authenticatedSafe.parseInternalValues({ safeContents: authenticatedSafe.safeContents.map(() => ({ password: secret.buffer as ArrayBuffer })) });
    for (const contents of authenticatedSafe.parsedValue?.safeContents ?? []) {
      for (const bag of contents.value.safeBags) {
        if (bag.bagId === SHROUDED_KEY_BAG) {
          const shrouded = bag.bagValue as pkijs.PKCS8ShroudedKeyBag;
          // Protected in PKI.js's types, but the way its own PKCS#12 examples decrypt a key bag.
          await (shrouded as unknown as Decryptable).parseInternalValues({ password: secret.buffer as ArrayBuffer });
          if (shrouded.parsedValue !== undefined) keys.push(new Uint8Array(shrouded.parsedValue.toSchema().toBER()));
        } else if (bag.bagId === KEY_BAG) {
          keys.push(new Uint8Array((bag.bagValue as pkijs.PrivateKeyInfo).toSchema().toBER()));
        } else if (bag.bagId === CERT_BAG) {
          const certBag = bag.bagValue as pkijs.CertBag;
          if (certBag.certId === X509_CERT && certBag.parsedValue instanceof pkijs.Certificate) certificates.push(certBag.parsedValue);
        }
      }
    }
  } catch (error) {
    if (error instanceof IdentityError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new IdentityError(`could not be opened with this password, or uses an encryption other than PBES2 (re-export it with OpenSSL 3's default \`openssl pkcs12 -export\`): ${reason}`);
  }
  const keyDer = keys[0];
  if (keyDer === undefined) throw new IdentityError('holds no private key');
  const key = createPrivateKey({ key: Buffer.from(keyDer), format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') {
    throw new IdentityError(`holds a ${key.asymmetricKeyType ?? 'unknown'} key; RSA and ECDSA keys sign`);
  }
  const signer = certificates.find((certificate) => new X509Certificate(new Uint8Array(certificate.toSchema().toBER())).checkPrivateKey(key));
  if (signer === undefined) throw new IdentityError('holds no certificate for its private key');
  return {
    key,
    certificate: signer,
    certificateDer: new Uint8Array(signer.toSchema().toBER()),
    chain: [signer, ...certificates.filter((certificate) => certificate !== signer)],
  };
}

/** PKI.js wants an ArrayBuffer of exactly the file's bytes. */
function copy(bytes: Uint8Array): ArrayBuffer {
  // Uint8Array.from copies: a Buffer's slice() is a view of a shared pool.
  return Uint8Array.from(bytes).buffer;
}
