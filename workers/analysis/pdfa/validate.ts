// PDF/A validation: which standard a document is checked against (the one
// asked for, else the one its XMP claims, else PDF/A-2b), and the report of
// every rule of that part and level (rules.ts's engine). Every part and
// level is checked: 1b and 1a, 2b, 2u and 2a, 3b, 3u and 3a (part 3 is
// part 2's rules under the same ids, plus its embedded-file rules, as
// veraPDF's PDF/A-3 profiles are). The answer's `standard` says what was
// checked, `claimed` what was claimed.
import type { PdfObjects } from '../../seams/pdf-objects.js';
import { runRules, type RuleReport } from '../rules.js';
import { PdfaDocument, type PdfaLevel, type PdfaPart } from './document.js';
import { forPart } from './rule.js';
import { COLOUR_RULES } from './rules-colour.js';
import { FONT_RULES } from './rules-fonts.js';
import { GLYPH_RULES } from './rules-glyphs.js';
import { GRAPHICS_RULES } from './rules-graphics.js';
import { INTERACTIVE_RULES } from './rules-interactive.js';
import { LOGICAL_RULES } from './rules-logical.js';
import { METADATA_RULES } from './rules-metadata.js';
import { EMBEDDED_FILE_RULES } from './rules-embedded-files.js';
import { STRUCTURE_RULES } from './rules-structure.js';
import { NS } from './xmp-schemas.js';

export const STANDARDS = ['pdfa-1b', 'pdfa-1a', 'pdfa-2b', 'pdfa-2u', 'pdfa-2a', 'pdfa-3b', 'pdfa-3u', 'pdfa-3a'] as const;
export type Standard = (typeof STANDARDS)[number];

const ALL_RULES = [...STRUCTURE_RULES, ...EMBEDDED_FILE_RULES, ...COLOUR_RULES, ...GRAPHICS_RULES, ...FONT_RULES, ...GLYPH_RULES, ...INTERACTIVE_RULES, ...METADATA_RULES, ...LOGICAL_RULES];

export interface Claim {
  /** "pdfa-2b", as the XMP pdfaid says: "pdfa-1a", "pdfa-3u", ...; null when the document claims none. */
  readonly claimed: string | null;
  /** The standard we check that claim at. */
  readonly standard: Standard | undefined;
}

/** The pdfaid part and conformance of the catalog's XMP, and the standard we check it as. */
export function readClaim(document: PdfaDocument): Claim {
  const id = document.metadata?.properties.filter((p) => p.namespace === NS.pdfaid) ?? [];
  const part = id.find((p) => p.name === 'part')?.value.trim();
  const conformance = id.find((p) => p.name === 'conformance')?.value.trim().toLowerCase();
  if (part === undefined || !/^[1-4]$/.test(part)) return { claimed: null, standard: undefined };
  const claimed = `pdfa-${part}${conformance ?? ''}`;
  if (part === '1') return { claimed, standard: conformance === 'a' ? 'pdfa-1a' : 'pdfa-1b' };
  if (part === '2' || part === '3') return { claimed, standard: `pdfa-${part}${conformance === 'a' || conformance === 'u' ? conformance : 'b'}` };
  return { claimed, standard: undefined };
}

export interface PdfaReport extends RuleReport {
  readonly standard: Standard;
  readonly claimed: string | null;
}

export function validatePdfa(bytes: Uint8Array, pdf: PdfObjects, requested: Standard | undefined): PdfaReport {
  // The claim is read with part 2's schemas; only pdfaid matters for it.
  const claim = readClaim(new PdfaDocument(bytes, pdf, 2, 'b'));
  const standard = requested ?? claim.standard ?? 'pdfa-2b';
  const part = Number(standard[5]) as PdfaPart;
  const level = standard[6] as PdfaLevel;
  const document = new PdfaDocument(bytes, pdf, part, level);
  const report = runRules(forPart(ALL_RULES, part, level), document);
  return { standard, claimed: claim.claimed, ...report };
}
