// The `sign` task (POST /api/v1/sign, pro): a PAdES baseline B-B signature
// (issue 11), added as an incremental update. The identity is the request's
// `certificate` (a PKCS#12 and its password) or else the deployment's
// (PLATEN_SIGNING_P12_FILE / PLATEN_SIGNING_P12_PASSWORD); with neither, 422
// signing-identity-missing. A document certified with DocMDP P=1 (no changes
// allowed) is 422 document-certified: any signature added breaks it. A
// truncated or damaged PDF is 422 invalid-pdf-data, as in every task that
// writes a PDF back. A usage-rights signature (/Perms /UR3) does not stop
// signing: the update leaves its bytes as they are, so it still verifies;
// Adobe Reader may then withdraw the features it granted (README, sign).
// With `appearance`, the signature is a visible box (signer, date, reason,
// location, text) drawn by the seam's pdf-signature-appearance.ts.
import { X509Certificate } from 'node:crypto';
import * as v from 'valibot';
import type { SignOptions } from '../protocol.js';
import { placeSignature, SignatureRefused, type SignatureBox } from '../seams/pdf-signature.js';
import { missingCharacters } from '../seams/pdf-form-appearance.js';
import { dejavu } from '../render/fonts.js';
import { decodeBase64 } from '../task/base64.js';
import { binaryTask, TaskFailure, type BinaryResult } from '../task/json-task.js';
import { decodePdfField } from '../task/pdf-field.js';
import { NO_DECODED_CAP } from '../docops/fields.js';
import { padesSignedData } from './cms.js';
import { deploymentIdentity } from './deployment-identity.js';
import { IdentityError, readPkcs12, type SigningIdentity } from './identity.js';
import { base64Member } from '../task/decoded-member.js';
import { refuseDamaged } from '../task/open-failure.js';
import { chargeQpdfDecoding } from '../seams/qpdf-decodes.js';
import { isEncrypted } from '../untrusted/pdf-streams.js';

/**
 * Bytes reserved for the DER CMS: a 4096-bit RSA signature with a chain of
 * three certificates is ~6 KB; 2048-bit RSA with one certificate ~1.3 KB.
 */
const CONTENTS_BYTES = 16_384;
/** A PKCS#12 file larger than this is not a signer's identity. */
const MAX_P12_BYTES = 1024 * 1024;

const Text = v.pipe(v.string(), v.maxLength(1000, 'must be at most 1000 characters'));
/** ISO 32000-2 Annex C: a page is at most 14,400 units wide or high. */
const MAX_EXTENT = 14_400;
const MAX_PAGE_NUMBER = 1_000_000;
const Coordinate = v.pipe(v.number(), v.minValue(0, 'must be at least 0 (points from the top-left corner)'), v.maxValue(MAX_EXTENT, `must be at most ${MAX_EXTENT}`));
/** A box smaller than this holds no legible line. */
const MIN_BOX = 12;
const Extent = v.pipe(v.number(), v.minValue(MIN_BOX, `must be at least ${MIN_BOX} points`), v.maxValue(MAX_EXTENT, `must be at most ${MAX_EXTENT}`));
const FALLBACK_FONT = 'DejaVuSans';

const SignRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  reason: v.optional(Text),
  location: v.optional(Text),
  contact_info: v.optional(Text),
  field_name: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters'), v.regex(/^[^.]+$/, 'must not contain "." (a partial field name)'))),
  appearance: v.optional(
    v.strictObject({
      page: v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1 (pages count from 1)'), v.maxValue(MAX_PAGE_NUMBER, `must be at most ${MAX_PAGE_NUMBER}`)),
      x: Coordinate,
      y: Coordinate,
      width: Extent,
      height: Extent,
      text: v.optional(Text),
    }),
  ),
  certificate: v.optional(v.strictObject({ p12: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))), password: v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters')) })),
});

type SignRequest = v.InferOutput<typeof SignRequest>;

export const sign = binaryTask(SignRequest, async (request: SignRequest, options: SignOptions): Promise<BinaryResult> => {
  const pdf = decodePdfField(request.pdf, 'pdf', NO_DECODED_CAP);
  const identity = await identityFor(request, options);
  // The update appends to the file as it is and points back at its
  // cross-reference data: a truncated or damaged file would come back signed
  // and still broken, readable only by a reader's repair (which pdf-lib
  // performs silently when it opens it). Refused as every writing task
  // refuses it (seams/qpdf-damage.ts); an encrypted file is refused below.
  if (!isEncrypted(pdf)) {
    await chargeQpdfDecoding(pdf, { writes: 'nothing', contents: false }, 'pdf');
    await refuseDamaged(pdf);
  }
  const signedAt = new Date();
  let placed;
  try {
    placed = await placeSignature(pdf, {
      fieldName: request.field_name,
      reason: request.reason,
      location: request.location,
      contactInfo: request.contact_info,
      signedAt,
      contentsBytes: CONTENTS_BYTES,
      ...(request.appearance === undefined ? {} : { appearance: signatureBox(request, identity, signedAt) }),
    });
  } catch (error) {
    if (!(error instanceof SignatureRefused)) throw error;
    throw refusalFailure(error);
  }
  const { bytes, contentsStart, contentsEnd } = placed;
  const byteRange = `/ByteRange [ 0 ${contentsStart} ${contentsEnd} ${bytes.length - contentsEnd} ]`;
  if (byteRange.length > placed.byteRangeLength) throw new Error('sign: the byte range does not fit its placeholder');
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).write(byteRange.padEnd(placed.byteRangeLength, ' '), placed.byteRangeAt, 'latin1');
  const cms = padesSignedData([bytes.subarray(0, contentsStart), bytes.subarray(contentsEnd)], identity);
  if (cms.length > CONTENTS_BYTES) throw TaskFailure.field('certificate', 'TOO_LARGE', `The signature with this certificate chain is ${cms.length} bytes; at most ${CONTENTS_BYTES} fit.`);
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).write(Buffer.from(cms).toString('hex'), contentsStart + 1, 'latin1');
  return { bytes, mediaType: 'application/pdf' };
}, { binaryFields: ['pdf', 'p12'] });

/** The visible box: the signer's name, the date, reason and location when given, then the caller's text. */
function signatureBox(request: SignRequest, identity: SigningIdentity, signedAt: Date): SignatureBox {
  const box = request.appearance as NonNullable<SignRequest['appearance']>;
  const lines = [`Digitally signed by ${signerName(identity)}`, `Date: ${signedAt.toISOString().slice(0, 19).replace('T', ' ')} UTC`];
  if (request.reason !== undefined) lines.push(`Reason: ${request.reason}`);
  if (request.location !== undefined) lines.push(`Location: ${request.location}`);
  if (box.text !== undefined) lines.push(...box.text.split(/\r\n|\r|\n/));
  const font = dejavu(FALLBACK_FONT);
  const missing = missingCharacters(lines.join(''), [font]);
  if (missing.length > 0) {
    throw TaskFailure.field('appearance.text', 'UNSUPPORTED_CHARACTERS', `No font of the signature box (Helvetica, DejaVu Sans) can draw ${missing.slice(0, 20).map((c) => `"${c}"`).join(', ')} (in the text, reason, location or the certificate's name).`);
  }
  return { page: box.page - 1, x: box.x, y: box.y, width: box.width, height: box.height, lines, fallbackFont: font };
}

/** The certificate subject's common name, else its organisation, else the whole subject. */
function signerName(identity: SigningIdentity): string {
  const subject = new X509Certificate(identity.certificateDer).subject.split('\n');
  const attribute = (name: string) => subject.find((part) => part.startsWith(`${name}=`))?.slice(name.length + 1);
  return attribute('CN') ?? attribute('O') ?? subject.join(', ');
}

async function identityFor(request: SignRequest, options: SignOptions): Promise<SigningIdentity> {
  if (request.certificate !== undefined) {
    const p12 = decodeBase64(request.certificate.p12, MAX_P12_BYTES);
    if (!(p12 instanceof Uint8Array)) throw TaskFailure.field('certificate.p12', p12.problem === 'too-large' ? 'TOO_LARGE' : 'INVALID_FORMAT', p12.message);
    try {
      return await readPkcs12(p12, request.certificate.password);
    } catch (error) {
      if (!(error instanceof IdentityError)) throw error;
      throw TaskFailure.field('certificate.p12', 'INVALID_CERTIFICATE', `The PKCS#12 file ${error.message}.`);
    }
  }
  if (options.p12File === undefined) {
    throw new TaskFailure('signing-identity-missing', 'No signing identity: send certificate {p12, password}, or configure PLATEN_SIGNING_P12_FILE and PLATEN_SIGNING_P12_PASSWORD.', [
      { field: 'certificate', code: 'REQUIRED', message: 'A PKCS#12 identity is needed: this deployment has none configured.' },
    ]);
  }
  return deploymentIdentity(options.p12File, options.p12Password ?? '');
}

function refusalFailure(error: SignatureRefused): TaskFailure {
  const refusal = error.refusal;
  switch (refusal.reason) {
    case 'unreadable':
      return TaskFailure.content('invalid-pdf-data', 'pdf', 'INVALID_PDF', 'could not be read as a PDF document.', refusal.cause);
    case 'encrypted':
      return TaskFailure.content('invalid-pdf-data', 'pdf', 'INVALID_PDF', 'is encrypted; sign the decrypted document (an encrypted PDF is signed before it is encrypted).', refusal.cause);
    case 'certified-no-changes':
      return new TaskFailure('document-certified', 'The document carries a certification signature that allows no changes (DocMDP P=1); any signature added would invalidate it.', [
        { field: 'pdf', code: 'CERTIFIED_NO_CHANGES', message: 'A certification signature with DocMDP P=1 forbids any change, signatures included.' },
      ]);
    case 'field-exists':
      return TaskFailure.field('field_name', 'DUPLICATE', `The document already has a field named "${refusal.name}"; choose another name.`);
    case 'no-such-page':
      return TaskFailure.field('appearance.page', 'OUT_OF_RANGE', `The document has ${refusal.pageCount} page${refusal.pageCount === 1 ? '' : 's'}.`);
    case 'box-outside-page':
      return TaskFailure.field('appearance', 'OUT_OF_RANGE', `The box reaches past the page, which is ${Math.round(refusal.pageWidth)} x ${Math.round(refusal.pageHeight)} points: x + width and y + height must stay within it.`);
  }
}
