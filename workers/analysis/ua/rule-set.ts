// Every PDF/UA-1 rule the check runs, in the order of the standard's clauses.
import { ANNOTATION_RULES } from './rules-annotations.js';
import { CONTENT_RULES } from './rules-content.js';
import { DOCUMENT_RULES } from './rules-document.js';
import { FONT_RULES } from './rules-fonts.js';
import { STRUCTURE_RULES } from './rules-structure.js';
import { TABLE_RULES } from './rules-tables.js';
import type { UaRule } from './rule.js';

const order = (id: string) => id.split(/[.-]/).map(Number);

export const UA_RULES: readonly UaRule[] = [...DOCUMENT_RULES, ...STRUCTURE_RULES, ...TABLE_RULES, ...CONTENT_RULES, ...ANNOTATION_RULES, ...FONT_RULES].sort((a, b) => {
  const [x, y] = [order(a.id), order(b.id)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? -1) !== (y[i] ?? -1)) return (x[i] ?? -1) - (y[i] ?? -1);
  return 0;
});
