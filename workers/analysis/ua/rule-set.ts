// Every PDF/UA-1 rule the check runs, in the order of the standard's clauses.
import { DOCUMENT_RULES } from './rules-document.js';
import type { UaRule } from './rule.js';

export const UA_RULES: readonly UaRule[] = [...DOCUMENT_RULES];
