// The rule engine the validators share (accessibility: PDF/UA-1; compliance:
// PDF/A): a rule is one test of a standard as veraPDF names it ("7.1-3" is
// ISO 14289-1 clause 7.1, test 3), checked against a document and reporting
// each place it fails. The report folds those places into one failure per
// rule, the shape both operations answer with, so a user sees the exact rule
// broken, how often, and on which pages.

export interface Violation {
  /** 1-based page where the rule fails; undefined for a document-level failure. */
  readonly page?: number;
  /** What failed, for a person: an object ("font Helvetica"), a value, a structure element. */
  readonly sample?: string;
}

export interface Rule<Document> {
  /** veraPDF's id: clause and test, "7.1-3", "6.1.2-1". */
  readonly id: string;
  /** The Matterhorn Protocol checkpoint the rule maps to, "01-005" (PDF/UA only). */
  readonly matterhorn?: string;
  /**
   * Every clause of the standard that states the requirement, the id's own
   * first, where the standard states it in more than one: veraPDF files
   * ISO 19005-1's "properties shall use predefined or extension schemas"
   * under 6.7.9 (6.7.9-2), and the standard (and veraPDF's corpus) under
   * 6.7.2 as well. Absent where the id's clause is the only one.
   */
  readonly clauses?: readonly string[];
  readonly description: string;
  /** Every place the document breaks the rule; none when it holds. */
  check(document: Document): Iterable<Violation>;
}

export interface RuleFailure {
  readonly rule: string;
  readonly matterhorn?: string;
  readonly clauses?: readonly string[];
  readonly description: string;
  readonly count: number;
  /** 1-based, ascending, at most MAX_PAGES_LISTED of them. */
  readonly pages: readonly number[];
  /** The first violation's sample. */
  readonly sample?: string;
}

export interface RuleReport {
  readonly compliant: boolean;
  readonly summary: { readonly rules_checked: number; readonly passed: number; readonly failed: number };
  readonly failures: readonly RuleFailure[];
}

/** Pages listed per failure: a rule broken on every page of a 1,000-page document lists the first ones; count says how many. */
const MAX_PAGES_LISTED = 100;
/** Violations counted per rule before the count stops (reported as that many): bounds the work a hostile file can cause. */
const MAX_VIOLATIONS_COUNTED = 100_000;
const MAX_SAMPLE_CHARS = 200;

export function runRules<Document>(rules: readonly Rule<Document>[], document: Document): RuleReport {
  const failures: RuleFailure[] = [];
  for (const rule of rules) {
    let count = 0;
    let sample: string | undefined;
    const pages = new Set<number>();
    for (const violation of rule.check(document)) {
      count++;
      if (sample === undefined && violation.sample !== undefined) sample = violation.sample.slice(0, MAX_SAMPLE_CHARS);
      if (violation.page !== undefined) pages.add(violation.page);
      if (count === MAX_VIOLATIONS_COUNTED) break;
    }
    if (count === 0) continue;
    failures.push({
      rule: rule.id,
      ...(rule.matterhorn === undefined ? {} : { matterhorn: rule.matterhorn }),
      ...(rule.clauses === undefined ? {} : { clauses: rule.clauses }),
      description: rule.description,
      count,
      pages: [...pages].sort((a, b) => a - b).slice(0, MAX_PAGES_LISTED),
      ...(sample === undefined ? {} : { sample }),
    });
  }
  return {
    compliant: failures.length === 0,
    summary: { rules_checked: rules.length, passed: rules.length - failures.length, failed: failures.length },
    failures,
  };
}
