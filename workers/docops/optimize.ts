// The `optimize` task (POST /api/v1/optimize, pro): a PDF made smaller
// without changing what it shows or says. In order:
// 0. an input qpdf cannot read without a repair (truncated, a broken
//    cross-reference table) is 422 invalid-pdf-data (seams/qpdf-damage.ts):
//    pdf-lib would read it by guessing, and the rewrite keep only what it
//    found (half a file came back 200 without its image and a font);
// 1. an encrypted input is decrypted with its password (qpdf), and the
//    result encrypted again the same way at the end (--copy-encryption);
// 2. signatures: rewriting a signed document breaks every signature in it,
//    so a signed input (untrusted/pdf-scan.ts countSignatures, the count
//    every route uses) is 422 document-signed unless the request says
//    remove_signatures (the fields stay, unsigned; /Perms goes);
// 3. metadata removed when asked (remove_metadata);
// 4. identical streams, fonts and graphics states stored once (pdf-rewrite.ts);
// 5. every image downsampled to `image_dpi` at its largest placed size
//    (content-walk.ts) when it is more than 1.5 times that, and re-encoded
//    (image-recode.ts); Ghostscript's DownsampleThreshold is 1.5 too;
// 6. qpdf writes the file: unreferenced objects and resources dropped,
//    every Flate stream recompressed at level 9, object streams.
// What that last qpdf run will decode is counted on the rewritten file just
// before it runs (seams/qpdf-decodes.ts), and step 5 charges the samples it
// inflates (image-recode.ts): a deflate bomb is 422 pdf-limits-exceeded,
// not 10-30 s of recompression and then a 504. Counted on the file as
// opened instead, the count inflated the images step 5 then replaces by
// JPEG: 11-13 ms of CPU, 5% of the bench's image-heavy optimize. The file
// as sent is counted for what reading it takes (object streams, page
// contents, streams under several filters) before pdf-lib does it more
// slowly: a 2 GiB content stream took 4.3 s and 1.2 GB of RSS to refuse.
// An encrypted file is counted in the clear (seams/qpdf-decrypt.ts: qpdf
// decrypts it without decoding its streams), and step 1 decrypts that
// rather than the file as sent, so no qpdf run decodes a stream of it
// before it is counted; the result is what decrypting the original gave.
// The result is never larger than the input: when nothing is gained, the
// input comes back byte for byte and X-Optimization says `unchanged`.
import * as v from 'valibot';
import type { DocOpsOptions } from '../protocol.js';
import { openRewritable, type ImageStream, type RewritableDocument } from '../seams/pdf-rewrite.js';
import { QpdfTrap, runQpdf } from '../seams/qpdf.js';
import { chargeQpdfDecoding } from '../seams/qpdf-decodes.js';
import { decryptedForCount } from '../seams/qpdf-decrypt.js';
import { damageOf, engineStopped } from '../seams/qpdf-damage.js';
import { countSignatures } from '../untrusted/pdf-scan.js';
import { isEncrypted } from '../untrusted/pdf-streams.js';
import { damageFailure, refuseDamaged } from '../task/open-failure.js';
import { binaryTask, TaskFailure, type BinaryResult } from '../task/json-task.js';
import { decodePdfField } from '../task/pdf-field.js';
import { placedImageSizes, type PlacedSize } from './content-walk.js';
import { NO_DECODED_CAP, Password } from './fields.js';
import { recodeImage, type RecodeSettings } from './image-recode.js';
import { base64Member } from '../task/decoded-member.js';

/** Settings of each profile, after Ghostscript's -dPDFSETTINGS (/screen 72 dpi, /ebook 150, /printer 300). */
export const PROFILES = {
  screen: { image_dpi: 72, image_quality: 60, grayscale: false, remove_metadata: true, object_streams: true },
  ebook: { image_dpi: 150, image_quality: 75, grayscale: false, remove_metadata: false, object_streams: true },
  printer: { image_dpi: 300, image_quality: 85, grayscale: false, remove_metadata: false, object_streams: true },
} as const;

/** An image is downsampled only past this multiple of the target resolution (Ghostscript's DownsampleThreshold for /screen and /ebook). */
export const DOWNSAMPLE_THRESHOLD = 1.5;

const OptimizeRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(Password),
  profile: v.optional(v.picklist(['screen', 'ebook', 'printer']), 'ebook'),
  image_dpi: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(36, 'must be at least 36'), v.maxValue(2400, 'must be at most 2400'))),
  image_quality: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'), v.maxValue(100, 'must be at most 100'))),
  grayscale: v.optional(v.boolean()),
  remove_metadata: v.optional(v.boolean()),
  object_streams: v.optional(v.boolean()),
  remove_signatures: v.optional(v.boolean(), false),
});

type OptimizeRequest = v.InferOutput<typeof OptimizeRequest>;

const INPUT = '/in.pdf';
const ORIGINAL = '/original.pdf';
const OUTPUT = '/out.pdf';

export const optimize = binaryTask(OptimizeRequest, async (request: OptimizeRequest, _options: DocOpsOptions): Promise<BinaryResult> => {
  const profile = PROFILES[request.profile];
  const settings: RecodeSettings & { dpi: number; removeMetadata: boolean; objectStreams: boolean } = {
    dpi: request.image_dpi ?? profile.image_dpi,
    quality: request.image_quality ?? profile.image_quality,
    grayscale: request.grayscale ?? profile.grayscale,
    removeMetadata: request.remove_metadata ?? profile.remove_metadata,
    objectStreams: request.object_streams ?? profile.object_streams,
  };
  const input = decodePdfField(request.pdf, 'pdf', NO_DECODED_CAP);
  const clear = await decryptedForCount(input, request.password, 'pdf');
  await chargeQpdfDecoding(clear ?? input, { writes: 'compressed', contents: true }, 'pdf');
  // pdf-lib would read a truncated or damaged file by guessing, and the
  // rewrite would then drop what it missed (seams/qpdf-damage.ts). An
  // encrypted file was read whole by qpdf's decryption (clear), or is
  // refused by open() below with why (password, or damage).
  if (clear === undefined && !isEncrypted(input)) await refuseDamaged(input);
  const { document, password } = await open(input, clear, request.password);

  // The one definition of a signature (untrusted/pdf-scan.ts), read from the
  // file as sent: field signatures, document timestamps and usage-rights
  // signatures alike, as linearize, parse and forensic-analyze count them.
  const signatures = countSignatures(input);
  if (signatures > 0) {
    if (!request.remove_signatures) {
      throw new TaskFailure('document-signed', `The document holds ${signatures} signature${signatures === 1 ? '' : 's'}, which any rewrite invalidates; send remove_signatures: true to optimize it without them, or keep the signed original.`, [
        { field: 'pdf', code: 'SIGNED_DOCUMENT', message: 'A signed document cannot be optimized without invalidating its signatures.' },
      ]);
    }
    document.removeSignatures();
  }
  // A PDF/A file stays one as far as this rewrite goes: its XMP (where the
  // PDF/A identification lives) is kept, and a PDF/A-1 file gets no object
  // streams: ISO 19005-1 is built on PDF 1.4, which has none.
  const pdfaPart = document.pdfaPart();
  if (settings.removeMetadata) document.removeMetadata(pdfaPart !== undefined);
  if (pdfaPart === 1) settings.objectStreams = false;
  document.deduplicate();
  await recodeImages(document, settings);
  const rewritten = await document.save();
  // The run below recompresses every Flate stream and parses page contents for unused resources.
  await chargeQpdfDecoding(rewritten, { writes: 'recompressed', contents: true }, 'pdf');
  const written = await writeWithQpdf(rewritten, settings.objectStreams, password === undefined ? undefined : { original: input, password });
  const smaller = written.length < input.length;
  return {
    bytes: smaller ? written : input,
    mediaType: 'application/pdf',
    // README "optimize": what was done, and both sizes in bytes.
    headers: [
      ['X-Optimization', smaller ? 'optimized' : 'unchanged'],
      ['X-Original-Size', String(input.length)],
      ['X-Optimized-Size', String(smaller ? written.length : input.length)],
    ],
  };
}, { binaryFields: ['pdf'] });

/**
 * The document opened for rewriting; an encrypted one decrypted first
 * (qpdf), from `clear` when the count decrypted it already, with the
 * password that re-encrypts the result.
 */
async function open(input: Uint8Array, clear: Uint8Array | undefined, password: string | undefined): Promise<{ document: RewritableDocument; password: string | undefined }> {
  let opened = clear === undefined ? await openRewritable(input) : undefined;
  let decryptedWith: string | undefined;
  if (opened === undefined || (!opened.ok && opened.reason === 'encrypted')) {
    decryptedWith = password ?? '';
    opened = await openRewritable(await decrypt(clear ?? input, decryptedWith, password === undefined));
  }
  if (!opened.ok) throw TaskFailure.content('invalid-pdf-data', 'pdf', 'INVALID_PDF', 'cannot be read as a PDF: its cross-reference table, trailer or page tree is damaged or missing.', opened.ok ? undefined : opened.cause);
  if (opened.document.pageCount === 0) throw TaskFailure.content('invalid-pdf-data', 'pdf', 'INVALID_PDF', 'has no pages (or its page tree cannot be read).');
  return { document: opened.document, password: decryptedWith };
}

async function decrypt(input: Uint8Array, password: string, missing: boolean): Promise<Uint8Array> {
  const run = await qpdf({ args: ['--decrypt', `--password=${password}`, INPUT, OUTPUT], inputs: new Map([[INPUT, input]]), outputs: [OUTPUT] });
  const output = run.outputs.get(OUTPUT);
  if ((run.exitCode === 0 || run.exitCode === 3) && output !== undefined) return output;
  if (/password/i.test(run.stderr)) {
    const message = missing ? 'The PDF in pdf is encrypted and needs its password to open; send it in password.' : 'The password does not open this PDF (neither its user nor its owner password).';
    throw new TaskFailure('pdf-password-required', message, [{ field: 'password', code: missing ? 'REQUIRED' : 'INCORRECT', message }]);
  }
  throw damaged(run.stderr, input);
}

async function recodeImages(document: RewritableDocument, settings: RecodeSettings & { dpi: number }): Promise<number> {
  const placed = placedImageSizes(document.pageContents(), document.xobject);
  // Out of scan budget, or a content stream that cannot be decoded: the sizes
  // read may miss a larger placement, so nothing is downsampled (images may
  // still be re-encoded at their size).
  const sizes = placed === undefined || document.contentUnreadable ? new Map<number, PlacedSize>() : placed;
  const images = document.images();
  const softMaskOf = new Map<number, ImageStream>();
  for (const image of images) if (image.smask !== undefined) softMaskOf.set(image.smask, image);
  let recoded = 0;
  for (const image of images) {
    const parent = softMaskOf.get(image.id);
    // A soft mask is painted wherever its image is, at that size.
    const size = sizes.get(parent?.id ?? image.id);
    const replacement = await recodeImage(image, size === undefined ? undefined : targetPixels(image, size, settings.dpi), settings, parent === undefined ? 'image' : 'soft-mask');
    if (replacement === undefined) continue;
    document.replaceImage(image.id, replacement);
    recoded++;
  }
  return recoded;
}

/** The pixel size that gives `dpi` at the image's largest placement, when the image exceeds it by more than the threshold. */
export function targetPixels(image: { width: number; height: number }, placed: PlacedSize, dpi: number): { width: number; height: number } | undefined {
  const needWidth = (placed.width / 72) * dpi;
  const needHeight = (placed.height / 72) * dpi;
  // One scale for both axes (the aspect ratio kept), large enough for the more demanding one.
  const scale = Math.max(needWidth / image.width, needHeight / image.height);
  if (!(scale > 0) || scale * DOWNSAMPLE_THRESHOLD >= 1) return undefined;
  return { width: Math.max(1, Math.round(image.width * scale)), height: Math.max(1, Math.round(image.height * scale)) };
}

async function writeWithQpdf(rewritten: Uint8Array, objectStreams: boolean, encryption: { original: Uint8Array; password: string } | undefined): Promise<Uint8Array> {
  const inputs = new Map([[INPUT, rewritten]]);
  const common = [`--object-streams=${objectStreams ? 'generate' : 'disable'}`, '--compress-streams=y', '--remove-unreferenced-resources=yes'];
  if (encryption !== undefined) {
    inputs.set(ORIGINAL, encryption.original);
    common.push(`--copy-encryption=${ORIGINAL}`, `--encryption-file-password=${encryption.password}`);
  }
  // Recompressing inflates every Flate stream, and one that does not inflate
  // (damaged data a viewer skips) fails the whole run in this build (exit 2,
  // "stream inflate: incorrect header check"): then the file is written
  // again with every Flate stream copied as it is.
  let run = await qpdf({ args: [INPUT, ...common, '--recompress-flate', '--compression-level=9', OUTPUT], inputs, outputs: [OUTPUT] });
  if (!((run.exitCode === 0 || run.exitCode === 3) && run.outputs.has(OUTPUT))) {
    run = await qpdf({ args: [INPUT, ...common, OUTPUT], inputs, outputs: [OUTPUT] });
  }
  const output = run.outputs.get(OUTPUT);
  if ((run.exitCode === 0 || run.exitCode === 3) && output !== undefined) return output;
  throw damaged(run.stderr, rewritten);
}

async function qpdf(call: Parameters<typeof runQpdf>[0]): ReturnType<typeof runQpdf> {
  try {
    return await runQpdf(call);
  } catch (error) {
    if (!(error instanceof QpdfTrap)) throw error;
    throw damageFailure(engineStopped(error.reason));
  }
}

/** qpdf failed on `input`, the file it was given (decrypt: the input; the final write: pdf-lib's rewrite of it). */
function damaged(stderr: string, input: Uint8Array): TaskFailure {
  return damageFailure(damageOf(stderr, input, INPUT));
}
