// check-accessibility's core: a PDF against the PDF/UA-1 rules (ISO 14289-1,
// as veraPDF's PDF/UA-1 profile numbers them), used by the task and by the
// corpus agreement script (bench/corpus-validation.ts).
import { openObjects } from '../../seams/pdf-objects.js';
import { runRules, type RuleReport } from '../rules.js';
import { UaDocument } from './document.js';
import { UA_RULES } from './rule-set.js';

export const UA_STANDARD = 'PDF/UA-1';

/** Throws pdf-structure's OpenFailure when the file cannot be opened. */
export async function checkAccessibility(bytes: Uint8Array, password: string | undefined): Promise<RuleReport> {
  const document = new UaDocument(await openObjects(bytes, password));
  return runRules(UA_RULES, document);
}
