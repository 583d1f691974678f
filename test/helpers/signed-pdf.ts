// A really signed PDF, made the way signing tools make one: a document
// (pdf-lib) with a signature field whose /V is a signature dictionary with a
// /ByteRange and a zero-filled /Contents placeholder; the byte range is then
// filled in, the covered bytes signed with `openssl cms -sign -binary
// -outform DER` (a detached CMS SignedData, adbe.pkcs7.detached) by a
// throwaway self-signed certificate made in a temporary directory, and the
// DER written into the placeholder as hex. `pdfsig` reports it valid.
// `usageRights` makes it a usage-rights signature instead (Adobe Reader
// extensions, ISO 32000-1 12.8.2.3): the signature dictionary hangs from the
// catalog's /Perms /UR3, with a UR3 transform, and no field holds it, so
// neither pdfsig nor the AcroForm's /SigFlags know of it.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts } from '@cantoo/pdf-lib';
import { pdfsig } from './signing.js';

const run = promisify(execFile);

/** Room for the DER signature: a 2048-bit RSA CMS with one certificate is ~1.5 KB. */
const SIGNATURE_BYTES = 8192;
/** Ten characters, so that any byte offset of a test file fits in its place. */
const PLACEHOLDER = '**********';

export interface SignedPdfOptions {
  /** A usage-rights signature (/Perms /UR3) rather than a field's. */
  readonly usageRights?: boolean;
}

export async function signedPdf(pages = 3, options: SignedPdfOptions = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++) doc.addPage().drawText(`Signed page ${i}`, { x: 72, y: 700, font, size: 20 });
  const context = doc.context;
  const signature = context.register(
    context.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: 'adbe.pkcs7.detached',
      ByteRange: [0, PDFName.of(PLACEHOLDER), PDFName.of(PLACEHOLDER), PDFName.of(PLACEHOLDER)],
      Contents: PDFHexString.of('0'.repeat(SIGNATURE_BYTES * 2)),
      Reason: PDFString.of('Platen linearization test'),
      M: PDFString.fromDate(new Date()),
      ...(options.usageRights
        ? { Reference: [{ Type: 'SigRef', TransformMethod: 'UR3', TransformParams: { Type: 'TransformParams', V: PDFName.of('2.2'), Document: ['FullSave'], Form: ['FillIn'] } }] }
        : {}),
    }),
  );
  if (options.usageRights) {
    doc.catalog.set(PDFName.of('Perms'), context.obj({ UR3: signature }));
  } else {
    const page = doc.getPage(0);
    const widget = context.register(
      context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', Rect: [0, 0, 0, 0], V: signature, T: PDFString.of('Signature1'), F: 4, P: page.ref }),
    );
    page.node.set(PDFName.of('Annots'), context.obj([widget]));
    doc.catalog.set(PDFName.of('AcroForm'), context.obj({ SigFlags: 3, Fields: [widget] }));
  }
  // No object streams: the signature dictionary must be readable in the file's bytes.
  const bytes = Buffer.from(await doc.save({ useObjectStreams: false }));

  const text = bytes.toString('latin1');
  const marker = `/ByteRange [ 0 /${PLACEHOLDER} /${PLACEHOLDER} /${PLACEHOLDER} ]`;
  const markerAt = text.indexOf(marker);
  const contentsAt = text.indexOf(`<${'0'.repeat(64)}`);
  if (markerAt < 0 || contentsAt < 0) throw new Error('signedPdf: pdf-lib wrote the placeholders differently than expected');
  const contentsEnd = contentsAt + SIGNATURE_BYTES * 2 + 2;
  const ranges = [0, contentsAt, contentsEnd, bytes.length - contentsEnd];
  bytes.write(`/ByteRange [ ${ranges.join(' ')} ]`.padEnd(marker.length, ' '), markerAt, 'latin1');

  const dir = await mkdtemp(join(tmpdir(), 'platen-sign-'));
  try {
    const [key, certificate, data, der] = ['key.pem', 'cert.pem', 'signed-bytes.bin', 'signature.der'].map((name) => join(dir, name)) as [string, string, string, string];
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=Platen test signer', '-days', '2', '-keyout', key, '-out', certificate]);
    await writeFile(data, Buffer.concat([bytes.subarray(0, contentsAt), bytes.subarray(contentsEnd)]));
    await run('openssl', ['cms', '-sign', '-binary', '-outform', 'DER', '-md', 'sha256', '-in', data, '-signer', certificate, '-inkey', key, '-out', der]);
    const signatureDer = await readFile(der);
    if (signatureDer.length > SIGNATURE_BYTES) throw new Error(`signedPdf: the signature (${signatureDer.length} bytes) does not fit its placeholder`);
    bytes.write(signatureDer.toString('hex').padEnd(SIGNATURE_BYTES * 2, '0'), contentsAt + 1, 'latin1');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return bytes;
}

export interface SignatureCheck {
  /** `pdfsig`'s "Signature Validation" line per signature, e.g. "Signature is Valid." */
  readonly validations: string[];
}

/** `pdfsig`: the validation result of every signature (the one reader of pdfsig's output is signing.ts). */
export async function pdfSignatures(pdf: Uint8Array): Promise<SignatureCheck> {
  return { validations: (await pdfsig(pdf)).map((signature) => signature.validation) };
}
