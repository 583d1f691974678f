// Verdict agreement with veraPDF's labelled corpus (`make corpus-ua`,
// `make corpus-pdfa`): every file of a profile's folders is validated
// in-process, and its verdict compared with its label. The corpus README
// (../shared/corpus/README.md) gives the labels: a `-pass-` file conforms, a
// `-fail-` file breaks the clause its folder names ("7.18.3 Tab order" is
// clause 7.18.3), and agreeing on a fail file means calling it non-compliant
// AND citing a rule of that clause ("7.18.3-1"), or a rule whose `clauses`
// (every clause of the standard that states it) include it. Prints agreement per clause
// and overall, the files that disagree, and the run time. Reads
// ../shared/corpus/verapdf/: not part of `make test`, which must not need it.
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { checkAccessibility } from '../workers/analysis/ua/check.js';
import type { RuleReport } from '../workers/analysis/rules.js';
import { validatePdfa, type Standard } from '../workers/analysis/pdfa/validate.js';
import { openObjects } from '../workers/seams/pdf-objects.js';

interface Profile {
  /** Folders of the corpus root validated with this profile. */
  readonly folders: readonly string[];
  validate(bytes: Uint8Array, folder: string): Promise<RuleReport>;
}

/** One entry per `make corpus-*` target; NAME=pdfa adds its PDF/A profiles here. */
const PROFILES: Readonly<Record<string, Profile>> = {
  ua: { folders: ['PDF_UA-1'], validate: (bytes) => checkAccessibility(bytes, undefined) },
  'pdfa-1b': { folders: ['PDF_A-1b'], validate: (bytes) => checkPdfa(bytes, 'pdfa-1b') },
  'pdfa-2b': { folders: ['PDF_A-2b'], validate: (bytes) => checkPdfa(bytes, 'pdfa-2b') },
};

/** compliance-check's validation, in-process (an unreadable file throws: the service answers it with a 422). */
async function checkPdfa(bytes: Uint8Array, standard: Standard): Promise<RuleReport> {
  return validatePdfa(bytes, await openObjects(bytes, undefined), standard);
}

const [profileName = 'ua', rootArgument] = process.argv.slice(2);
const ROOT = rootArgument ?? fileURLToPath(new URL('../../../shared/corpus/verapdf/', import.meta.url));

async function* pdfFiles(folder: string): AsyncGenerator<string> {
  for (const entry of (await readdir(folder, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* pdfFiles(path);
    else if (entry.name.toLowerCase().endsWith('.pdf')) yield path;
  }
}

/** "7.18.3 Tab order" → "7.18.3"; "6.1.2 File header" → "6.1.2". */
function clauseOf(path: string): string {
  return basename(dirname(path)).split(' ')[0]!;
}

interface Outcome {
  readonly file: string;
  readonly clause: string;
  readonly expected: 'pass' | 'fail';
  /** The verdict matches the label (compliant for pass files, non-compliant for fail files). */
  readonly verdictAgrees: boolean;
  /** The verdict matches and a fail file's failures cite its clause. */
  readonly agrees: boolean;
  readonly why?: string;
}

function judge(file: string, report: RuleReport | Error): Outcome {
  const clause = clauseOf(file);
  const expected = /-fail-/.test(basename(file)) ? 'fail' : 'pass';
  if (report instanceof Error) return { file, clause, expected, verdictAgrees: false, agrees: false, why: `error: ${report.message.slice(0, 120)}` };
  const rules = report.failures.map((failure) => failure.rule);
  const verdictAgrees = report.compliant === (expected === 'pass');
  if (!verdictAgrees) return { file, clause, expected, verdictAgrees, agrees: false, why: expected === 'pass' ? `called non-compliant: ${rules.join(' ')}` : 'called compliant' };
  const cited = report.failures.some((failure) => failure.rule.startsWith(`${clause}-`) || failure.clauses?.includes(clause) === true);
  if (expected === 'pass' || cited) return { file, clause, expected, verdictAgrees, agrees: true };
  return { file, clause, expected, verdictAgrees, agrees: false, why: `does not cite ${clause}: ${rules.join(' ')}` };
}

async function main(): Promise<void> {
  const profile = PROFILES[profileName];
  if (profile === undefined) throw new Error(`unknown profile ${profileName}; one of ${Object.keys(PROFILES).join(', ')}`);
  const outcomes: Outcome[] = [];
  let pages = 0;
  const started = performance.now();
  for (const folder of profile.folders) {
    for await (const file of pdfFiles(join(ROOT, folder))) {
      const bytes = new Uint8Array(await readFile(file));
      let report: RuleReport | Error;
      try {
        report = await profile.validate(bytes, folder);
      } catch (error) {
        report = error as Error;
      }
      outcomes.push(judge(relative(ROOT, file), report));
      pages += countPages(bytes);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const byClause = new Map<string, Outcome[]>();
  for (const outcome of outcomes) byClause.set(outcome.clause, [...(byClause.get(outcome.clause) ?? []), outcome]);
  const percent = (list: readonly Outcome[], agrees: (o: Outcome) => boolean = (o) => o.agrees) => `${((100 * list.filter(agrees).length) / list.length).toFixed(1)}%`;
  console.log(`${'clause'.padEnd(12)} files  agree  pass-files fail-files`);
  for (const [clause, list] of [...byClause].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))) {
    const count = (expected: string) => `${list.filter((o) => o.expected === expected && o.agrees).length}/${list.filter((o) => o.expected === expected).length}`;
    console.log(`${clause.padEnd(12)} ${String(list.length).padStart(5)}  ${percent(list).padStart(6)} ${count('pass').padStart(10)} ${count('fail').padStart(10)}`);
  }
  const byFamily = new Map<string, Outcome[]>();
  for (const outcome of outcomes) {
    const family = outcome.clause.split('.').slice(0, 2).join('.');
    byFamily.set(family, [...(byFamily.get(family) ?? []), outcome]);
  }
  console.log(`\n${'family'.padEnd(12)} files  verdict  verdict+clause`);
  for (const [family, list] of [...byFamily].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))) {
    console.log(`${family.padEnd(12)} ${String(list.length).padStart(5)}  ${percent(list, (o) => o.verdictAgrees).padStart(7)}  ${percent(list).padStart(14)}`);
  }
  console.log(`\nDisagreements:`);
  for (const outcome of outcomes.filter((o) => !o.agrees)) console.log(`  ${outcome.file}: ${outcome.why}`);
  console.log(
    `\n${profileName}: ${outcomes.length} files, verdict agreement ${percent(outcomes, (o) => o.verdictAgrees)}, verdict and clause ${percent(outcomes)}; ` +
      `${seconds.toFixed(1)} s, ${(pages / seconds).toFixed(1)} pages/s (${pages} pages)`,
  );
}

/** Pages by the /Type /Page count in the bytes: only for the pages/s figure, not a verdict. */
function countPages(bytes: Uint8Array): number {
  const matches = Buffer.from(bytes).toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g);
  return Math.max(1, matches?.length ?? 0);
}

await main();
