// Encrypted PDFs for the count in front of qpdf's decryption
// (workers/seams/qpdf-decrypt.ts), made with Debian's qpdf, whose
// encryption is the reference: a file encrypted as it is
// (--stream-data=preserve, so a bomb stays a bomb), the key and method qpdf
// derives from the password, and an AES-256 sealing taken from a file qpdf
// encrypted, for a bomb qpdf would not write itself (the padding of an
// object stream, which qpdf drops when it writes one anew).
import { execFile } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { pdfOf, type Sealing } from './bomb-pdfs.js';
import { qpdfTransform, withFile } from './pdf-tools.js';

const run = promisify(execFile);

export const USER_PASSWORD = 'user-pw';
export const OWNER_PASSWORD = 'owner-pw';

/** Encryption as qpdf's `--encrypt` takes it: AES-256 (revision 6), AES-128 and RC4-128 (revision 4 and 3), RC4-40 (revision 2). */
export type Encryption = 'aes-256' | 'aes-128' | 'rc4-128' | 'rc4-40';

const ENCRYPT_ARGS: Record<Encryption, readonly string[]> = {
  'aes-256': ['256'],
  'aes-128': ['128', '--use-aes=y'],
  'rc4-128': ['128', '--use-aes=n'],
  'rc4-40': ['40'],
};

/**
 * `pdf` encrypted by qpdf with the user password `user` (empty: anyone
 * opens it) and OWNER_PASSWORD; streams stored as they were, so a bomb
 * stays one. `objectStreams`: qpdf's --object-streams (`generate` packs
 * the objects it can into object streams).
 */
export function encrypted(pdf: Uint8Array, encryption: Encryption = 'aes-256', user = USER_PASSWORD, objectStreams: 'preserve' | 'generate' = 'preserve'): Promise<Uint8Array> {
  return qpdfTransform(pdf, ['--allow-weak-crypto', '--encrypt', user, OWNER_PASSWORD, ...ENCRYPT_ARGS[encryption], '--', '--stream-data=preserve', `--object-streams=${objectStreams}`]);
}

/** The file's key and its streams' method, as `qpdf --show-encryption-key` gives them. */
export async function encryptionKey(pdf: Uint8Array, password = USER_PASSWORD): Promise<{ key: Buffer; method: string }> {
  const out = await withFile(pdf, async (path) => (await run('qpdf', ['--show-encryption', '--show-encryption-key', `--password=${password}`, path])).stdout);
  const key = /^Encryption key = ([0-9a-f]+)$/m.exec(out)?.[1];
  if (key === undefined) throw new Error(`no key in: ${out}`);
  return { key: Buffer.from(key, 'hex'), method: /^stream encryption method: (\w+)$/m.exec(out)?.[1] ?? 'RC4' };
}

/**
 * AES-256 as qpdf writes it for USER_PASSWORD (ISO 32000-2 7.6.3.2: each
 * stream's data the IV and then AES-CBC with the file's key, which
 * revision 6 uses for every object): the encryption dictionary and /ID of
 * a file qpdf encrypted, and its key.
 */
export async function aes256Sealing(): Promise<Sealing> {
  const pdf = await encrypted(pdfOf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>']));
  const { key } = await encryptionKey(pdf);
  const show = (object: string) => withFile(pdf, async (path) => (await run('qpdf', [`--password=${USER_PASSWORD}`, `--show-object=${object}`, path])).stdout);
  const trailer = await show('trailer');
  const dictionary = /\/Encrypt (\d+) 0 R/.exec(trailer)?.[1];
  const id = /\/ID \[[^\]]*\]/.exec(trailer)?.[0];
  if (dictionary === undefined || id === undefined) throw new Error(`unexpected trailer: ${trailer}`);
  return {
    data: (bytes) => {
      const iv = randomBytes(16);
      const cipher = createCipheriv('aes-256-cbc', key, iv);
      return Buffer.concat([iv, cipher.update(bytes), cipher.final()]);
    },
    dictionary: (await show(dictionary)).trim(),
    id: id.slice('/ID '.length),
  };
}
