// Page assembly for merge and split: qpdf --empty --pages, in this thread
// (qpdf's WebAssembly build, workers/seams/qpdf.ts). qpdf copies each page
// with everything it uses (resources, annotations, inherited attributes),
// merges the interactive forms (a field whose name another document already
// uses is renamed, "name" → "name+1", so both survive) and carries page
// labels over; what it does not carry (outline, internal links' targets,
// document information) is structure.ts's part afterwards.
import type { SourceStructure } from '../seams/pdf-structure.js';
import { QpdfTrap, runQpdf } from '../seams/qpdf.js';
import { chargeQpdfDecoding } from '../seams/qpdf-decodes.js';
import { decryptedForCount } from '../seams/qpdf-decrypt.js';
import { damageOf } from '../seams/qpdf-damage.js';
import { TaskFailure } from '../task/json-task.js';
import { damageFailure } from '../task/open-failure.js';
import { openSource } from './structure.js';

export interface AssemblySource {
  readonly bytes: Uint8Array;
  readonly password: string | undefined;
  /** 0-based page indices, in output order. */
  readonly pages: readonly number[];
  /** The request member holding the PDF, for errors (`documents[1].pdf`). */
  readonly field: string;
}

const OUTPUT = '/out.pdf';

/** A source opened for assembly: its structure, and the bytes and password qpdf assembles its pages from. */
export interface CountedSource {
  readonly structure: SourceStructure;
  readonly bytes: Uint8Array;
  readonly password: string | undefined;
}

/**
 * Opens a source for merge or split. What qpdf will decode of it is counted
 * first (seams/qpdf-decodes.ts), before pdf-lib reads it (which inflates a
 * bombed object stream up to the cap in JavaScript); an encrypted source is
 * counted in the clear (seams/qpdf-decrypt.ts), and its pages assembled from
 * there, so no qpdf run decrypts it again (the pages come out the same, and
 * unencrypted either way). pdf-lib still reads the structure from the file
 * as sent: it reads some encrypted files' document information differently
 * from qpdf (an RC4 file's /Creator dropped), and the outline, links and
 * information it reads are what the output carries. Page contents are
 * counted once pdf-lib has said whether qpdf will parse them (shared
 * resources).
 */
export async function openCounted(bytes: Uint8Array, password: string | undefined, field: string, passwordField: string): Promise<CountedSource> {
  const clear = await decryptedForCount(bytes, password, field);
  const counted = clear ?? bytes;
  await chargeQpdfDecoding(counted, { writes: 'compressed', contents: false }, field);
  const structure = await openSource(bytes, password, field, passwordField);
  if (structure.sharesResources) await chargeQpdfDecoding(counted, { writes: 'nothing', contents: true }, field);
  return { structure, bytes: counted, password: clear === undefined ? password : undefined };
}

export async function assemblePages(sources: readonly AssemblySource[]): Promise<Uint8Array> {
  const inputs = new Map<string, Uint8Array>();
  const args = ['--empty', '--pages'];
  sources.forEach((source, i) => {
    const path = `/in${i}.pdf`;
    inputs.set(path, source.bytes);
    args.push(path);
    if (source.password !== undefined) args.push(`--password=${source.password}`);
    args.push(qpdfRange(source.pages));
  });
  args.push('--', OUTPUT);
  let run;
  try {
    run = await runQpdf({ args, inputs, outputs: [OUTPUT] });
  } catch (error) {
    if (!(error instanceof QpdfTrap)) throw error;
    throw new TaskFailure('invalid-pdf-data', 'The pages cannot be assembled: a PDF nests objects more than 100 levels deep, or the inputs are too large for the PDF engine\'s memory.', [
      { field: sources.length === 1 ? (sources[0] as AssemblySource).field : '(body)', code: 'INVALID_PDF', message: 'The PDF engine stopped on this input.' },
    ], error.reason);
  }
  const output = run.outputs.get(OUTPUT);
  // 3: success with warnings (a damaged but readable source); the output is whole.
  if ((run.exitCode === 0 || run.exitCode === 3) && output !== undefined) return output;
  const culprit = sources.findIndex((_, i) => run.stderr.includes(`/in${i}.pdf`));
  const source = sources[culprit === -1 ? 0 : culprit] as AssemblySource;
  throw damageFailure(damageOf(run.stderr, source.bytes, `/in${culprit === -1 ? 0 : culprit}.pdf`), source.field);
}

/** 0-based indices as qpdf's 1-based page range, consecutive runs written as "a-b" to keep the argument short. */
export function qpdfRange(pages: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && (pages[j + 1] as number) === (pages[j] as number) + 1) j++;
    const first = (pages[i] as number) + 1;
    const last = (pages[j] as number) + 1;
    parts.push(first === last ? String(first) : `${first}-${last}`);
    i = j + 1;
  }
  return parts.join(',');
}
