// A PDF/UA-1 rule: veraPDF's id and description (PDFUA-1.xml), the Matterhorn
// checkpoint from the one table, and the check.
import type { Rule, Violation } from '../rules.js';
import type { UaDocument } from './document.js';
import { MATTERHORN } from './matterhorn.js';

export type UaRule = Rule<UaDocument>;

export function uaRule(id: string, description: string, check: (document: UaDocument) => Iterable<Violation>): UaRule {
  const matterhorn = MATTERHORN[id];
  return { id, description, check, ...(matterhorn === undefined ? {} : { matterhorn }) };
}
