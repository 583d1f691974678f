// A stream of an encrypted PDF in the clear, given the file's key: for the
// count in front of qpdf's decryption (seams/qpdf-decrypt.ts), which must
// know what an encrypted object stream decodes to before qpdf decodes it.
// The file's key is qpdf's (`--show-encryption-key`): the password
// algorithms (ISO 32000-2 7.6.4.3, MD5 rounds for revisions 2-4, the
// SHA-2 and AES rounds of revision 6) stay qpdf's alone. What is left is
// small: the object's key (7.6.3.3 Algorithm 1: MD5 of the file's key, the
// object number's low 3 bytes and the generation's low 2, then "sAlT" for
// AES; the first n + 5 bytes, at most 16), and the ciphers. AES-128 and
// AES-256 in CBC mode with the IV in the first 16 bytes (7.6.3.2) are
// node:crypto's; RC4 is not (OpenSSL 3 keeps it in its legacy provider,
// which Node 20 does not load), so it is here, as ISO 32000 and every PDF
// reader that decrypts carry it: a 256-byte permutation and one loop.
import { createDecipheriv, createHash } from 'node:crypto';

/** How qpdf's `--show-encryption` names a stream's method ("stream encryption method: AESv2"); revisions 2 and 3, which name none, are RC4. */
export type StreamMethod = 'RC4' | 'AESv2' | 'AESv3' | 'none';

/** The object a stream is, for the object's key. */
export interface ObjectRef {
  readonly num: number;
  readonly gen: number;
}

/**
 * A function that turns an encrypted stream's bytes into its bytes in the
 * clear; undefined back when the object's key cannot be made (AES-128 and
 * RC4 need the object's number). Data that was not encrypted comes back as
 * garbage: the caller decodes both.
 */
export function streamDecryptor(fileKey: Uint8Array, method: StreamMethod): (ref: ObjectRef | undefined, data: Uint8Array) => Uint8Array | undefined {
  return (ref, data) => {
    switch (method) {
      case 'none':
        return data;
      case 'AESv3':
        return aesCbc(fileKey, data);
      case 'AESv2':
        return ref === undefined ? undefined : aesCbc(objectKey(fileKey, ref, true), data);
      case 'RC4':
        return ref === undefined ? undefined : rc4(objectKey(fileKey, ref, false), data);
    }
  };
}

/** ISO 32000-2 7.6.3.3, Algorithm 1. */
function objectKey(fileKey: Uint8Array, { num, gen }: ObjectRef, aes: boolean): Buffer {
  const hash = createHash('md5');
  hash.update(fileKey);
  hash.update(Buffer.from([num & 0xff, (num >> 8) & 0xff, (num >> 16) & 0xff, gen & 0xff, (gen >> 8) & 0xff]));
  if (aes) hash.update('sAlT', 'latin1');
  return hash.digest().subarray(0, Math.min(fileKey.length + 5, 16));
}

/** AES in CBC mode, the IV first; PKCS#5 padding removed when it is valid (a damaged stream's last block is kept as it is). */
function aesCbc(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (data.length < 32 || (key.length !== 16 && key.length !== 32)) return new Uint8Array(0);
  const body = data.subarray(16, 16 + Math.floor((data.length - 16) / 16) * 16);
  const cipher = key.length === 16 ? 'aes-128-cbc' : 'aes-256-cbc';
  try {
    const decipher = createDecipheriv(cipher, key, data.subarray(0, 16));
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    const decipher = createDecipheriv(cipher, key, data.subarray(0, 16)).setAutoPadding(false);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  }
}

/** RC4 (ISO 32000-2 7.6.3.1 names it; the cipher as every reader writes it). */
function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + (s[i] as number) + (key[i % key.length] as number)) & 0xff;
    [s[i], s[j]] = [s[j] as number, s[i] as number];
  }
  const out = new Uint8Array(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 0xff;
    j = (j + (s[i] as number)) & 0xff;
    const si = s[i] as number;
    s[i] = s[j] as number;
    s[j] = si;
    out[k] = (data[k] as number) ^ (s[(si + (s[i] as number)) & 0xff] as number);
  }
  return out;
}
