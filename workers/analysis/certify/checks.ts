// What a team feeding PDFs to a language model needs to know first, as
// checks with a status and scores in [0, 1]. Each check reads facts the
// certify task gathered page by page with the reader (text, images, layout,
// tables, hidden text); nothing here reads the PDF itself, so the rules can
// be read and tested on their own.
import type { HiddenEntry } from '../forensic/findings.js';

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface Check {
  readonly id: 'text-layer' | 'reading-order' | 'language' | 'tables' | 'hidden-content';
  readonly status: CheckStatus;
  readonly detail: string;
  readonly pages?: readonly number[];
}

export interface PageFacts {
  readonly page: number;
  /** Non-whitespace characters of text (an OCR layer's included: a model reads it). */
  readonly characters: number;
  readonly images: number;
  /** Characters in runs whose order extraction cannot follow: off-axis rotation, or drawn over other text. */
  readonly disorderedCharacters: number;
  readonly tables: number;
  /** Cells of this page's tables, and those with text. */
  readonly cells: number;
  readonly filledCells: number;
}

export interface DocumentFacts {
  readonly pages: readonly PageFacts[];
  /** The language detected in the text (BCP 47), null when not confident. */
  readonly detectedLanguage: string | null;
  /** The catalog's /Lang. */
  readonly declaredLanguage: string | null;
  readonly tagged: boolean;
  readonly hasOutline: boolean;
  readonly hasTitle: boolean;
  readonly hidden: readonly HiddenEntry[];
}

export interface Scores {
  readonly text_coverage: number;
  readonly structure: number;
  readonly reading_order: number;
  readonly language: number;
  readonly tables: number;
  readonly hidden_content: number;
}

/** Kinds of hidden text a person cannot see at all on the page (forensic-analyze's `high`). */
const UNSEEN = new Set(['invisible', 'background-colour', 'covered']);
/** Below this share of content pages with text, the document is mostly images a model cannot read. */
const MIN_COVERAGE = 0.5;
const ORDER_PASS = 0.9;
const ORDER_WARN = 0.6;
const FILLED_CELLS = 0.8;

export function runChecks(facts: DocumentFacts): { checks: Check[]; scores: Scores } {
  const total = facts.pages.reduce((sum, page) => sum + page.characters, 0);
  const content = facts.pages.filter((page) => page.characters > 0 || page.images > 0);
  const scanned = content.filter((page) => page.characters === 0).map((page) => page.page);
  const coverage = content.length === 0 ? 0 : (content.length - scanned.length) / content.length;
  const checks: Check[] = [];

  if (total === 0) checks.push({ id: 'text-layer', status: 'fail', detail: 'No page has a text layer: a model would read nothing (run OCR first).', pages: scanned });
  else if (scanned.length === 0) checks.push({ id: 'text-layer', status: 'pass', detail: `Every page with content has a text layer (${total} characters).` });
  else {
    checks.push({
      id: 'text-layer',
      status: coverage < MIN_COVERAGE ? 'fail' : 'warn',
      detail: `${scanned.length} of ${content.length} pages with content are images without a text layer (scanned); their text would be missing.`,
      pages: scanned,
    });
  }

  const disordered = facts.pages.reduce((sum, page) => sum + page.disorderedCharacters, 0);
  const order = total === 0 ? 0 : 1 - disordered / total;
  const orderPages = facts.pages.filter((page) => page.disorderedCharacters > 0).map((page) => page.page);
  checks.push({
    id: 'reading-order',
    status: total === 0 ? 'fail' : order >= ORDER_PASS ? 'pass' : order >= ORDER_WARN ? 'warn' : 'fail',
    detail:
      total === 0
        ? 'No text to put in order.'
        : disordered === 0
          ? 'All text runs lie on the page axes and none is drawn over another: blocks and columns read in order.'
          : `${disordered} of ${total} characters are rotated off the page axes or drawn over other text, where extraction mixes words up.`,
    ...(orderPages.length === 0 ? {} : { pages: orderPages }),
  });

  const declared = facts.declaredLanguage?.split('-')[0]?.toLowerCase() ?? null;
  let languageScore = 0;
  if (facts.detectedLanguage !== null) {
    languageScore = 1;
    const agrees = declared === null || declared === facts.detectedLanguage.split('-')[0];
    checks.push({
      id: 'language',
      status: agrees ? 'pass' : 'warn',
      detail: agrees
        ? `The text is in "${facts.detectedLanguage}"${declared === null ? ' (the document declares no /Lang)' : ', as the document declares'}.`
        : `The text reads as "${facts.detectedLanguage}" but the document declares /Lang "${facts.declaredLanguage}".`,
    });
  } else if (declared !== null) {
    languageScore = 0.5;
    checks.push({ id: 'language', status: 'warn', detail: `The document declares /Lang "${facts.declaredLanguage}", but its text is too short or mixed to confirm a language.` });
  } else {
    checks.push({ id: 'language', status: total === 0 ? 'fail' : 'warn', detail: total === 0 ? 'No text, so no language.' : 'No language could be detected in the text, and the document declares none.' });
  }

  const tables = facts.pages.reduce((sum, page) => sum + page.tables, 0);
  const cells = facts.pages.reduce((sum, page) => sum + page.cells, 0);
  const filled = facts.pages.reduce((sum, page) => sum + page.filledCells, 0);
  const tableScore = cells === 0 ? 1 : filled / cells;
  const tablePages = facts.pages.filter((page) => page.tables > 0).map((page) => page.page);
  checks.push({
    id: 'tables',
    status: tableScore >= FILLED_CELLS ? 'pass' : 'warn',
    detail:
      tables === 0
        ? 'No tables detected.'
        : `${tables} table${tables === 1 ? '' : 's'} detected with ${cells} cells, ${filled} holding text${tableScore >= FILLED_CELLS ? '' : ': many cells came out empty, so rows may not extract whole'}.`,
    ...(tablePages.length === 0 ? {} : { pages: tablePages }),
  });

  const hiddenCharacters = facts.hidden.reduce((sum, entry) => sum + entry.characters, 0);
  const unseen = facts.hidden.filter((entry) => UNSEEN.has(entry.kind));
  const hiddenPages = [...new Set(facts.hidden.map((entry) => entry.page))];
  checks.push({
    id: 'hidden-content',
    status: unseen.length > 0 ? 'fail' : facts.hidden.length > 0 ? 'warn' : 'pass',
    detail:
      facts.hidden.length === 0
        ? 'No text a person cannot see: nothing a model would read that a reader would not.'
        : `${hiddenCharacters} characters of text a person does not see but a model reads (${[...new Set(facts.hidden.map((entry) => entry.kind))].join(', ')}), the way prompt injections hide: "${(facts.hidden[0] as HiddenEntry).sample.slice(0, 80)}".`,
    ...(hiddenPages.length === 0 ? {} : { pages: hiddenPages }),
  });

  const scores: Scores = {
    text_coverage: round(total === 0 ? 0 : coverage),
    structure: round((facts.tagged ? 0.5 : 0) + (facts.hasOutline ? 0.25 : 0) + (facts.hasTitle ? 0.25 : 0)),
    reading_order: round(order),
    language: languageScore,
    tables: round(tableScore),
    hidden_content: round(total + hiddenCharacters === 0 ? 1 : 1 - hiddenCharacters / (total + hiddenCharacters)),
  };
  return { checks, scores };
}

export function verdictOf(checks: readonly Check[]): 'certified' | 'certified_with_warnings' | 'rejected' {
  if (checks.some((check) => check.status === 'fail')) return 'rejected';
  return checks.some((check) => check.status === 'warn') ? 'certified_with_warnings' : 'certified';
}

function round(value: number): number {
  return Math.round(Math.max(0, Math.min(1, value)) * 1000) / 1000;
}
