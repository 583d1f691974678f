// A PDF/A rule as the rule files write it: one check, with the id veraPDF
// gives it in each part's profile (the clause moved between ISO 19005-1 and
// 19005-2: the stream Length rule is 6.1.7-1 in part 1 and 6.1.7.1-1 in
// parts 2 and 3), so a check is written once and reported under the id of
// the part being validated. A rule without an id for a part does not apply
// to it.
import type { Rule, Violation } from '../rules.js';
import type { PdfaDocument, PdfaLevel, PdfaPart } from './document.js';

export interface PdfaRule {
  /** veraPDF's ids: part 1, parts 2 and 3 (`3` overrides `2` for part 3 where they differ). */
  readonly ids: { readonly 1?: string; readonly 2?: string; readonly 3?: string | null };
  /**
   * Other clauses of part 1 that state the same requirement (see Rule.clauses):
   * the clause ISO 19005-1 and veraPDF's corpus file it under where veraPDF's
   * profile numbers the rule elsewhere.
   */
  readonly alsoStatedIn?: { readonly 1?: readonly string[] };
  readonly description: string;
  /** Parts 2 and 3 at levels U and A only (A includes U); part 1 at level A, where the rule has a part 1 id. */
  readonly levelU?: boolean;
  /** Level A only: the logical-structure rules. */
  readonly levelA?: boolean;
  check(document: PdfaDocument): Iterable<Violation>;
}

export function forPart(rules: readonly PdfaRule[], part: PdfaPart, level: PdfaLevel): Rule<PdfaDocument>[] {
  const out: Rule<PdfaDocument>[] = [];
  for (const rule of rules) {
    if (rule.levelU === true && level === 'b') continue;
    if (rule.levelA === true && level !== 'a') continue;
    const id = part === 1 ? rule.ids[1] : part === 3 && rule.ids[3] !== undefined ? rule.ids[3] : rule.ids[2];
    if (id === undefined || id === null) continue;
    const also = part === 1 ? rule.alsoStatedIn?.[1] : undefined;
    const clauses = also === undefined ? undefined : [id.slice(0, id.lastIndexOf('-')), ...also];
    out.push({ id, ...(clauses === undefined ? {} : { clauses }), description: rule.description, check: (document) => rule.check(document) });
  }
  return out;
}

/** A violation without a page. */
export function at(sample: string, page?: number): Violation {
  return page === undefined ? { sample } : { page, sample };
}
