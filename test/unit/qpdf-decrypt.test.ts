// An encrypted PDF in the clear for the count in front of qpdf, without a
// server: untrusted/pdf-crypt.ts decrypts every stream as Debian's qpdf does
// under each encryption, and seams/qpdf-decrypt.ts counts an encrypted
// object stream exactly (when its worst case does not fit the budget)
// before qpdf inflates it to decrypt the file. The HTTP side is
// test/decode-bombs-encrypted.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { decryptedForCount } from '../../workers/seams/qpdf-decrypt.js';
import { DecodedBytesExceeded, openDecodedBudget } from '../../workers/untrusted/decoded-bytes.js';
import { streamDecryptor, type StreamMethod } from '../../workers/untrusted/pdf-crypt.js';
import { isEncrypted, rawStreams } from '../../workers/untrusted/pdf-streams.js';
import { pdfOf } from '../helpers/bomb-pdfs.js';
import { encrypted, encryptionKey, USER_PASSWORD, type Encryption } from '../helpers/encrypted-pdfs.js';
import { withFile } from '../helpers/pdf-tools.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const ENCRYPTIONS: Encryption[] = ['aes-256', 'aes-128', 'rc4-128', 'rc4-40'];

/** One page whose dictionary holds 2 MiB of text: qpdf packs it into an object stream that deflates to a few KB. */
const LARGE_PAGE = pdfOf([
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> /Contents 4 0 R /PieceInfo << /Platen << /Private (${'a'.repeat(2 * MiB)}) >> >> >>`,
  '<< /Length 0 >>\nstream\n\nendstream',
]);

test('every stream decrypts to what qpdf decrypts, under each encryption', async () => {
  for (const encryption of ENCRYPTIONS) {
    const pdf = await encrypted(LARGE_PAGE, encryption, USER_PASSWORD, 'generate');
    const { key, method } = await encryptionKey(pdf);
    const decrypt = streamDecryptor(key, method as StreamMethod);
    let compared = 0;
    for (const stream of rawStreams(pdf)) {
      if (stream.dict?.name('Type') === 'XRef' || stream.ref === undefined) continue;
      const byQpdf = await withFile(pdf, async (path) => (await run('qpdf', [`--password=${USER_PASSWORD}`, `--show-object=${stream.ref?.num}`, '--raw-stream-data', path], { encoding: 'buffer', maxBuffer: 64 * MiB })).stdout);
      assert.deepEqual(Buffer.from(decrypt(stream.ref, stream.data()) ?? []), byQpdf, `${encryption}, object ${stream.ref.num}`);
      compared++;
    }
    assert.ok(compared >= 2, `${encryption}: the object stream and the content stream`);
  }
});

test('an encrypted object stream is counted before qpdf decrypts the file: refused under a cap below what it holds, decrypted above it', async () => {
  for (const encryption of ENCRYPTIONS) {
    const pdf = await encrypted(LARGE_PAGE, encryption, USER_PASSWORD, 'generate');
    // Its worst case (1,032 times its bytes) is past 1 MiB: decrypted here and counted exactly.
    openDecodedBudget(MiB);
    await assert.rejects(decryptedForCount(pdf, USER_PASSWORD, 'pdf'), DecodedBytesExceeded, encryption);
    openDecodedBudget(16 * MiB);
    const clear = await decryptedForCount(pdf, USER_PASSWORD, 'pdf');
    assert.ok(clear !== undefined && !isEncrypted(clear), encryption);
  }
});

test('nothing is decrypted for an unencrypted file, or with a password that does not open it (the task then answers as before)', async () => {
  openDecodedBudget(MiB);
  assert.equal(await decryptedForCount(LARGE_PAGE, undefined, 'pdf'), undefined);
  const pdf = await encrypted(LARGE_PAGE, 'aes-256', USER_PASSWORD, 'generate');
  assert.equal(await decryptedForCount(pdf, 'wrong', 'pdf'), undefined);
  assert.equal(await decryptedForCount(pdf, undefined, 'pdf'), undefined);
});
