// Whether a PDF can be read as it is, without a repair, and if not, why, in
// words a person can act on. One decision for every task that writes a
// client's PDF back (linearize, merge, split, optimize, sign): a repair
// guesses (a stream's length, a cross-reference table rebuilt by scanning
// for objects) and can lose content silently, so a file that needs one is
// refused with what is wrong and how to repair it oneself, never written.
//
// The judge is qpdf (this WebAssembly build), which never repairs: it
// cannot catch its own typed C++ exceptions, so the first problem that
// would start a repair in the native CLI ends the run (exit 2). pdf-lib,
// which optimize and sign write with, repairs silently instead: it reads a
// file object by object from the start and ignores a missing or broken
// cross-reference table, so a PDF cut short came back from optimize with an
// image and a font gone, and sign signed it (hunt, 42,591 of a file's
// 85,183 bytes). Those tasks ask this module first.
import { looksTruncated } from '../untrusted/pdf-scan.js';
import { QpdfTrap, runQpdf } from './qpdf.js';
import { damageInOurWords, qpdfMessages, summarizeMessages } from './qpdf-messages.js';

/** Why the file was refused: the sentence after the member's name ("pdf is truncated: ..."), and qpdf's own words for the log. */
export interface Damage {
  readonly kind: 'truncated' | 'damaged' | 'engine-stopped';
  /** Starts with "is ...": the caller puts the member's name or "The PDF" before it. */
  readonly description: string;
  /** qpdf's messages, for the log line's `cause` (never the document's text). */
  readonly cause: string;
}

/**
 * What a failed qpdf run (exit 2, or 3 with warnings its caller does not
 * accept) says about the PDF it read from `inputPath`: truncated when the
 * file does not end with `%%EOF` (the likeliest cause, and the one a person
 * can check: the upload or the base64), else damaged, with how many
 * problems and where.
 */
export function damageOf(stderr: string, pdf: Uint8Array, inputPath: string): Damage {
  const messages = qpdfMessages(stderr, inputPath);
  const cause = summarizeMessages(messages);
  if (looksTruncated(pdf)) {
    return { kind: 'truncated', description: 'is truncated: it does not end with %%EOF, so it was probably cut short (check the upload or the base64 encoding).', cause };
  }
  return {
    kind: 'damaged',
    description:
      `is damaged: ${damageInOurWords(messages)}. It is not repaired here, since a repair can lose content silently; ` +
      'repair it yourself (for example qpdf in.pdf out.pdf, which reports what it changed), check the result and send that.',
    cause,
  };
}

/** The input stopped qpdf before it ran (nesting past MAX_NESTING) or trapped it (its memory). */
export function engineStopped(reason: string): Damage {
  return { kind: 'engine-stopped', description: 'cannot be processed: it nests objects more than 100 levels deep, or is too large for the PDF engine\'s memory.', cause: reason };
}

/**
 * qpdf warnings that name no damage, so a run that gives only these stands:
 * the trailer's /Size is only a count of the objects, which qpdf writes
 * afresh, so a wrong one loses nothing (72 files of the veraPDF corpus,
 * labelled pass as often as fail, which every reader opens).
 */
const HARMLESS = [/^reported number of objects \(\d+\) is not one plus the highest object number \(\d+\)$/];

/** Every qpdf message of the run is a HARMLESS one. */
export function onlyHarmlessWarnings(stderr: string, inputPath: string): boolean {
  return qpdfMessages(stderr, inputPath).every((message) => HARMLESS.some((pattern) => pattern.test(message)));
}

const INPUT = '/in.pdf';

/**
 * Undefined when qpdf reads the PDF's cross-reference data, trailer and page
 * tree as they are (`qpdf --show-npages`: exit 0, or 3 with warnings, which
 * in this build are never repairs: merge and split accept the same);
 * otherwise what is wrong. The file must not be encrypted with a user
 * password (qpdf would say "invalid password"): callers ask only of a file
 * they can open. It decodes object streams and XMP only, which every
 * caller has counted against the decoded-bytes budget before
 * (seams/qpdf-decodes.ts). 3 ms a file on average over the 1,126 corpus
 * PDFs; it refuses one of them, agstat.pdf, which this qpdf build cannot
 * open (README, merge), and which linearize, merge, split and optimize
 * refused already.
 */
export async function readDamage(pdf: Uint8Array): Promise<Damage | undefined> {
  let run;
  try {
    run = await runQpdf({ args: ['--show-npages', INPUT], inputs: new Map([[INPUT, pdf]]) });
  } catch (error) {
    if (!(error instanceof QpdfTrap)) throw error;
    return engineStopped(error.reason);
  }
  if (run.exitCode === 0 || run.exitCode === 3) return undefined;
  return damageOf(run.stderr, pdf, INPUT);
}
