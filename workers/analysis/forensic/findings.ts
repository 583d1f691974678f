// What the forensic facts mean for someone about to trust or open the
// document: one finding per concern, with a severity, and the overall risk
// as the worst of them. The scale: high = the document may act against its
// reader (JavaScript run on opening, a program started) or is not what was
// signed or shown; medium = it can reach outside itself or hides
// something; low = traces of editing; info = facts worth knowing.
import type { ActiveItem } from './active-content.js';
import type { HiddenKind } from './hidden-text.js';
import type { MetadataReport } from './metadata.js';
import type { Revision } from './revisions.js';
import type { SignatureReport } from './signatures.js';

export type Severity = 'info' | 'low' | 'medium' | 'high';

export interface Finding {
  readonly code: string;
  readonly severity: Severity;
  readonly detail: string;
}

export interface HiddenEntry {
  readonly page: number;
  readonly kind: HiddenKind;
  readonly characters: number;
  readonly sample: string;
}

export interface Facts {
  readonly encrypted: boolean;
  readonly revisions: readonly Revision[];
  readonly trailingBytes: number;
  readonly signatures: readonly SignatureReport[];
  readonly active: readonly ActiveItem[];
  readonly hidden: readonly HiddenEntry[];
  readonly ocrPages: readonly number[];
  readonly metadata: MetadataReport;
}

const RANK: Readonly<Record<Severity, number>> = { info: 0, low: 1, medium: 2, high: 3 };

const HIDDEN_WORDS: Readonly<Record<HiddenKind, string>> = {
  invisible: 'drawn invisible (text render mode 3) with no image under it',
  'background-colour': 'in the colour of its background',
  'outside-crop-box': 'placed outside the visible page',
  tiny: 'drawn smaller than 1 pt',
  covered: 'covered by a shape or image painted over it',
};

export function findingsOf(facts: Facts): Finding[] {
  const findings: Finding[] = [];
  const add = (code: string, severity: Severity, detail: string) => findings.push({ code, severity, detail });

  for (const signature of facts.signatures) {
    const name = signature.field === null ? 'a signature' : `signature "${signature.field}"`;
    if (signature.digest_matches === false) add('SIGNATURE_DIGEST_MISMATCH', 'high', `${name}: the bytes it covers no longer hash to the digest that was signed; the signed revision was altered.`);
    if (signature.signature_valid === false) add('SIGNATURE_INVALID', 'high', `${name}: the signature value does not verify with the signer certificate's key.`);
    if (signature.modified_after_signing) {
      const visible = signature.changes_after_signing.filter((change) => change.kind !== 'form-fields');
      const changed = signature.changes_after_signing.map((change) => `${change.kind}${change.pages === undefined ? '' : ` (pages ${change.pages.join(', ')})`}${change.fields === undefined ? '' : ` (${change.fields.slice(0, 10).join(', ')})`}`);
      if (visible.length > 0) add('MODIFIED_AFTER_SIGNING', 'high', `${name} covers revision ${signature.revision ?? '?'}; later updates changed what a reader sees: ${changed.join('; ')}.`);
      else if (changed.length > 0) add('MODIFIED_AFTER_SIGNING', 'medium', `${name}: later updates changed form field values: ${changed.join('; ')}.`);
      else add('UPDATED_AFTER_SIGNING', 'info', `${name} covers revision ${signature.revision ?? '?'}; later updates added signatures or validation data and changed no page, annotation or field value.`);
    }
  }

  for (const item of facts.active) {
    const where = `${item.location}${item.trigger === null ? '' : `, trigger ${item.trigger}`}${item.in_object_stream ? ', stored in a compressed object stream' : ''}`;
    switch (item.kind) {
      case 'javascript': {
        const automatic = item.trigger === 'OpenAction' || item.trigger === 'named' || (item.trigger?.startsWith('AA/') ?? false);
        add('JAVASCRIPT', automatic || item.in_object_stream ? 'high' : 'medium', `JavaScript (${where}) ${automatic ? 'runs without the reader doing anything' : 'runs when activated'}.`);
        break;
      }
      case 'launch':
        add('LAUNCH_ACTION', 'high', `A Launch action (${where}) starts a program or opens a file outside the viewer${item.sample === undefined ? '' : `: ${item.sample}`}.`);
        break;
      case 'submit-form':
        add('SUBMIT_FORM', 'medium', `A SubmitForm action (${where}) sends form data${item.sample === undefined ? '' : ` to ${item.sample}`}.`);
        break;
      case 'import-data':
        add('IMPORT_DATA', 'medium', `An ImportData action (${where}) fills the form from an outside file.`);
        break;
      case 'goto-remote':
      case 'goto-embedded':
        add('OPENS_OTHER_DOCUMENT', 'low', `A ${item.kind === 'goto-remote' ? 'GoToR' : 'GoToE'} action (${where}) opens another document.`);
        break;
      case 'uri':
        add('URI_ACTION', item.trigger === 'OpenAction' || (item.trigger?.startsWith('AA/') ?? false) ? 'medium' : 'info', `A link (${where}) opens ${item.sample ?? 'a web address'}.`);
        break;
      case 'embedded-file':
        add('EMBEDDED_FILE', 'medium', `Embedded file "${item.sample ?? 'unnamed'}" (${where}): ${item.detail}.`);
        break;
      case 'xfa':
        add('XFA_FORM', 'medium', `An XFA form (${where}): Adobe readers show its XML form instead of the PDF pages and run its scripts.`);
        break;
      case 'rich-media':
        add('RICH_MEDIA', 'medium', `RichMedia content (${where}) played by the viewer.`);
        break;
    }
  }

  const byKind = new Map<HiddenKind, HiddenEntry[]>();
  for (const entry of facts.hidden) byKind.set(entry.kind, [...(byKind.get(entry.kind) ?? []), entry]);
  for (const [kind, entries] of byKind) {
    const characters = entries.reduce((sum, entry) => sum + entry.characters, 0);
    const pages = [...new Set(entries.map((entry) => entry.page))];
    // Text a person cannot see but a model reads: prompt injection's hiding places.
    const severity: Severity = kind === 'invisible' || kind === 'background-colour' || kind === 'covered' ? 'high' : 'medium';
    add('HIDDEN_TEXT', severity, `${characters} characters ${HIDDEN_WORDS[kind]} on page${pages.length === 1 ? '' : 's'} ${pages.slice(0, 20).join(', ')}: "${(entries[0] as HiddenEntry).sample.slice(0, 80)}".`);
  }
  if (facts.ocrPages.length > 0) add('OCR_LAYER', 'info', `Invisible text over images on page${facts.ocrPages.length === 1 ? '' : 's'} ${facts.ocrPages.slice(0, 20).join(', ')}: an OCR layer, as scanners write.`);

  const updates = facts.revisions.length - 1;
  if (updates > 0) add('INCREMENTAL_UPDATES', 'info', `${updates} incremental update${updates === 1 ? '' : 's'} after the original revision.`);
  if (facts.revisions.some((revision) => revision.xref === 'unreadable')) add('DAMAGED_CROSS_REFERENCE', 'low', 'A revision\'s cross-reference section could not be read; readers rebuild it, and may show different objects than the section claims.');
  if (facts.trailingBytes > 16) add('DATA_AFTER_EOF', 'medium', `${facts.trailingBytes} bytes follow the last %%EOF: data no PDF reader shows (a polyglot file or appended payload).`);
  for (const mismatch of facts.metadata.mismatches) {
    add('METADATA_MISMATCH', 'low', `${mismatch.field} differs between the Info dictionary (${JSON.stringify(mismatch.info)}) and XMP (${JSON.stringify(mismatch.xmp)}): a trace of editing by a tool that updated one of them.`);
  }
  if (facts.metadata.xmp.present && !facts.metadata.xmp.well_formed) add('XMP_MALFORMED', 'low', 'The XMP metadata stream is not well-formed XML.');
  if (facts.encrypted) add('ENCRYPTED', 'info', 'The document is encrypted; it was analysed decrypted.');
  return findings.sort((a, b) => RANK[b.severity] - RANK[a.severity]);
}

export function riskOf(findings: readonly Finding[]): 'none' | 'low' | 'medium' | 'high' {
  const worst = findings.reduce((max, finding) => Math.max(max, RANK[finding.severity]), 0);
  return worst === 0 ? 'none' : worst === 1 ? 'low' : worst === 2 ? 'medium' : 'high';
}
