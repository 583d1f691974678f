// The `linearize` task (POST /v1/linearize): a PDF in, the same PDF
// linearized for fast web view out, with qpdf (WebAssembly) in this thread.
//
// Decisions (README "Linearization" and the accelerator contract):
// - Signed PDFs: linearizing rewrites every byte offset, so each signature's
//   /ByteRange no longer covers the file it signed and the signature stops
//   verifying. With `preserve_signatures` (the default) a signed PDF comes
//   back byte for byte unchanged, `linearized: false`, and a notice saying
//   why; with `preserve_signatures: false` it is linearized and the response
//   says how many signatures no longer verify.
// - `optimize_for_web` adds to linearization what makes the file smaller
//   without touching what it shows: object streams, every stream compressed,
//   Flate streams recompressed at level 9. Nothing lossy (no image
//   recompression). Without it the output is qpdf --linearize's.
// - Damaged PDFs are refused, not repaired: a repair guesses (a stream
//   length, a cross-reference table) and can silently lose content the
//   author did not lose. (This WebAssembly build of qpdf cannot repair
//   anyway: it cannot catch its own typed C++ exceptions, so the first
//   problem it meets ends the run, where the native CLI would repair.)
// - Encrypted PDFs are refused, whether they need a password to open or
//   carry only an owner password: rewriting a document whose permissions may
//   forbid changes is not ours to decide.
// - What qpdf will decode is counted before it runs (seams/qpdf-decodes.ts):
//   past PLATEN_MAX_DECODED_BYTES the answer is 422 pdf-limits-exceeded at
//   once, not a 504 after qpdf has inflated a bomb until the timeout.
import * as v from 'valibot';
import { decodePdfField } from '../task/pdf-field.js';
import { TaskFailure, jsonTask, type JsonResult } from '../task/json-task.js';
import { QpdfTrap, runQpdf, type QpdfRun } from '../seams/qpdf.js';
import { chargeQpdfDecoding } from '../seams/qpdf-decodes.js';
import { countSignatures, linearizedPageCount, mentionsEncryption } from '../untrusted/pdf-scan.js';
import { damageOf, engineStopped, onlyHarmlessWarnings, type Damage } from '../seams/qpdf-damage.js';
import { base64Member } from '../task/decoded-member.js';
import { Base64Answer } from '../task/json-answer.js';

const LinearizeRequest = v.strictObject({
  pdf_data: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  options: v.optional(
    v.strictObject({
      optimize_for_web: v.optional(v.boolean(), false),
      preserve_signatures: v.optional(v.boolean(), true),
    }),
    {},
  ),
});

type LinearizeRequest = v.InferOutput<typeof LinearizeRequest>;

/** The envelope's `data` on the wire (accel.openapi.yaml, LinearizeResult). */
export interface LinearizeResult {
  readonly pdf_data: string;
  readonly original_size_bytes: number;
  readonly linearized_size_bytes: number;
  readonly page_count: number;
  readonly linearized: boolean;
  readonly signature_count: number;
  readonly signatures_preserved: boolean;
  readonly notice: string | null;
}

const INPUT = '/input.pdf';
const OUTPUT = '/output.pdf';
const OPTIMIZE_FOR_WEB = ['--object-streams=generate', '--compress-streams=y', '--recompress-flate', '--compression-level=9'];

export const linearize = jsonTask(LinearizeRequest, async (request: LinearizeRequest): Promise<JsonResult> => {
  const pdf = decodePdfField(request.pdf_data, 'pdf_data');
  const signatures = countSignatures(pdf);
  const { optimize_for_web: optimize, preserve_signatures: preserve } = request.options;
  const unchanged = signatures > 0 && preserve;
  // The widest run below: --linearize writes (and optimize_for_web recompresses); a signed file kept only has its pages counted.
  await chargeQpdfDecoding(pdf, { writes: unchanged ? 'nothing' : optimize ? 'recompressed' : 'compressed', contents: false }, 'pdf_data');
  if (mentionsEncryption(pdf)) await refuseIfEncrypted(pdf);

  if (unchanged) {
    return result(pdf, pdf, await pageCount(pdf), {
      linearized: false,
      signature_count: signatures,
      signatures_preserved: true,
      notice:
        `The PDF carries ${plural(signatures, 'digital signature')}; linearizing rewrites the file and would invalidate ${signatures === 1 ? 'it' : 'them'}, ` +
        'so it is returned unchanged. Send options.preserve_signatures: false to linearize it anyway.',
    });
  }

  const run = await qpdf(['--linearize', ...(optimize ? OPTIMIZE_FOR_WEB : []), INPUT, OUTPUT], pdf, [OUTPUT]);
  const output = run.outputs.get(OUTPUT);
  if (output === undefined) throw new Error('qpdf --linearize succeeded without writing its output');
  const pages = linearizedPageCount(output);
  if (pages === undefined) throw new Error('qpdf --linearize wrote a file without a linearization dictionary');
  return result(pdf, output, pages, {
    linearized: true,
    signature_count: signatures,
    signatures_preserved: signatures === 0,
    notice:
      signatures === 0
        ? null
        : `The PDF carried ${plural(signatures, 'digital signature')}; linearizing rewrote the file, so ${signatures === 1 ? 'it no longer verifies' : 'they no longer verify'}. Sign the linearized file again if signatures are needed.`,
  });
}, { binaryFields: ['pdf_data'] });

async function refuseIfEncrypted(pdf: Uint8Array): Promise<void> {
  // qpdf --requires-password exits 0 when a password is needed to open the
  // file, 3 when it is encrypted but opens without one (owner password
  // only), 2 when it is not encrypted. This WebAssembly build cannot catch
  // qpdf's own typed exceptions (its repair paths never run either), so the
  // "password needed" case surfaces as exit 2 with qpdf's "invalid password".
  const { exitCode, stderr } = await runQpdf({ args: ['--requires-password', INPUT], inputs: new Map([[INPUT, pdf]]) });
  if (exitCode === 0 || (exitCode === 2 && /: invalid password$/m.test(stderr))) {
    throw invalidPdf('The PDF is encrypted and needs a password to open; this service takes no passwords. Send it decrypted (for example from qpdf --decrypt --password=...).',
    );
  }
  if (exitCode === 3) {
    throw invalidPdf('The PDF is encrypted: it opens without a password, but an owner password restricts what may be changed, and linearizing rewrites it. Send it decrypted (for example from qpdf --decrypt).',
    );
  }
  // Exit 2 for any other reason: not encrypted after all (the bytes "/Encrypt"
  // were text), or damaged, which the next qpdf run reports.
}

async function pageCount(pdf: Uint8Array): Promise<number> {
  const run = await qpdf(['--show-npages', INPUT], pdf, []);
  const pages = Number(run.stdout.trim());
  if (!Number.isInteger(pages) || pages < 0) throw new Error(`qpdf --show-npages printed something else than a number (${run.stdout.length} characters)`);
  return pages;
}

/** Runs qpdf on the PDF; every outcome but a clean success (or one with only harmless warnings, seams/qpdf-damage.ts) is the client's 422. */
async function qpdf(args: string[], pdf: Uint8Array, outputs: string[]): Promise<QpdfRun> {
  let run: QpdfRun;
  try {
    run = await runQpdf({ args, inputs: new Map([[INPUT, pdf]]), outputs });
  } catch (error) {
    if (!(error instanceof QpdfTrap)) throw error;
    throw refusal(engineStopped(error.reason));
  }
  if (run.exitCode === 0) return run;
  // 3 is qpdf's "repaired, with warnings"; this build never repairs, but another may.
  if (run.exitCode === 3 && onlyHarmlessWarnings(run.stderr, INPUT)) return run;
  throw refusal(damageOf(run.stderr, pdf, INPUT));
}

function result(input: Uint8Array, output: Uint8Array, pages: number, rest: Omit<LinearizeResult, 'pdf_data' | 'original_size_bytes' | 'linearized_size_bytes' | 'page_count'>): JsonResult {
  // pdf_data is written as base64 straight from the bytes (json-answer.ts): a linearized PDF can be megabytes.
  const data: Omit<LinearizeResult, 'pdf_data'> & { readonly pdf_data: Base64Answer } = {
    pdf_data: new Base64Answer(output),
    original_size_bytes: input.byteLength,
    linearized_size_bytes: output.byteLength,
    page_count: pages,
    ...rest,
  };
  return { data };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** A damaged, truncated or unprocessable PDF, in the words every writing task uses (seams/qpdf-damage.ts). */
function refusal(damage: Damage): TaskFailure {
  return invalidPdf(`The PDF ${damage.description}`, damage.cause);
}

/** A refusal of the PDF itself: 422 invalid-pdf-data, its errors[] naming pdf_data as every 422 does. */
function invalidPdf(detail: string, cause?: string): TaskFailure {
  return new TaskFailure('invalid-pdf-data', detail, [{ field: 'pdf_data', code: 'INVALID_PDF', message: detail }], cause);
}
