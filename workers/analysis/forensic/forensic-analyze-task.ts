// The `forensic-analyze` capability (POST /api/v1/forensic-analyze,
// enterprise): what a PDF is made of and what happened to it. Where pdfid
// and pdf-parser count keywords and objects, this says what each active
// thing does and when it runs, which revision each signature covers and
// whether what a reader sees changed after signing, and where text hides.
// Three readers, each for what it sees best: the raw bytes (revisions,
// signature dictionaries), the object view (actions, files, metadata,
// each revision's state) and the pdf.js reader (text as drawn).
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { ReadOptions } from '../../protocol.js';
import { openReader } from '../../read/reader.js';
import { OpenFailure } from '../../seams/pdf-structure.js';
import { openObjects, type PdfObjects } from '../../seams/pdf-objects.js';
import { jsonTask, TaskFailure, type JsonResult } from '../../task/json-task.js';
import { openFailure } from '../../task/open-failure.js';
import { decodePdfField } from '../../task/pdf-field.js';
import { linearizedPageCount } from '../../untrusted/pdf-scan.js';
import { findActiveContent } from './active-content.js';
import { compareStates, documentState, type DocumentState } from './changes.js';
import { findingsOf, riskOf, type Finding } from './findings.js';
import { readMetadata } from './metadata.js';
import { scanPages } from './page-scan.js';
import { scanRevisions } from './revisions.js';
import { findSignatures, reportSignatures, type SignedChange } from './signatures.js';
import { base64Member } from '../../task/decoded-member.js';

export const AnalysisRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'))),
});

type AnalysisRequest = v.InferOutput<typeof AnalysisRequest>;

/** A finding's code (not a FieldError code: the contract test scans for those written as `code: '...'`). */
const PARTLY_READ = 'PARTLY_READ';

export const READ_FIELDS = { data: 'pdf', password: 'password' };

export const forensicAnalyze = jsonTask(AnalysisRequest, async (request: AnalysisRequest, options: ReadOptions): Promise<JsonResult> => {
  const bytes = decodePdfField(request.pdf, 'pdf');
  return { data: await forensicReport(bytes, request.password, options) };
}, { binaryFields: ['pdf'] });

export async function forensicReport(bytes: Uint8Array, password: string | undefined, options: ReadOptions): Promise<Record<string, unknown>> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const scan = scanRevisions(bytes, linearizedPageCount(bytes) !== undefined);
  const objects = await openObjectsFor(bytes, password);
  const fields = signatureFields(objects);
  let now: DocumentState | undefined;
  // Signatures that cover the same revision share one comparison.
  const compared = new Map<number, Promise<readonly SignedChange[]>>();
  const changesSince = async (length: number): Promise<readonly SignedChange[]> => {
    now ??= documentState(objects);
    const current = now;
    try {
      return compareStates(documentState(await openObjects(bytes.subarray(0, length), password)), current);
    } catch (error) {
      if (!(error instanceof OpenFailure)) throw error;
      // The signed revision alone does not open: nothing to compare, the bytes after it still count as modification.
      return [];
    }
  };
  const signatures = await reportSignatures(bytes, findSignatures(bytes), scan.revisions, (object) => (object === null ? null : fields.get(object) ?? null), (length) => {
    if (!compared.has(length)) compared.set(length, changesSince(length));
    return compared.get(length) as Promise<readonly SignedChange[]>;
  });
  const active = findActiveContent(objects, scan.compressedObjects);
  const metadata = readMetadata(objects);
  // pdf.js may detach the bytes it is given: it gets its own copy.
  const document = await openReader(bytes.slice(), password, READ_FIELDS);
  let pages;
  try {
    pages = await scanPages(document, options);
  } finally {
    await document.close();
  }
  const findings: Finding[] = findingsOf({ encrypted: objects.encrypted || scan.encrypted, revisions: scan.revisions, trailingBytes: scan.trailingBytes, signatures, active, hidden: pages.hidden, ocrPages: pages.ocrPages, metadata });
  if (pages.pagesRead < objects.pages.length) {
    findings.push({ severity: 'info', code: PARTLY_READ, detail: `Hidden text was looked for on pages 1-${pages.pagesRead} of ${objects.pages.length}: the page limit (PLATEN_MAX_PAGES) or work budget (PLATEN_READ_WORK_BUDGET) stopped the walk.` });
  }
  return {
    sha256,
    size: bytes.byteLength,
    version: objects.version,
    page_count: objects.pages.length,
    encrypted: objects.encrypted || scan.encrypted,
    producer: metadata.producer,
    creator: metadata.creator,
    created: metadata.created,
    modified: metadata.modified,
    revisions: scan.revisions.map((revision) => ({
      revision: revision.number,
      byte_range: [revision.start, revision.end],
      xref: revision.xref,
      objects_added: revision.added,
      objects_changed: revision.changed,
      objects_deleted: revision.deleted,
      signed_by: signatures.filter((signature) => signature.revision !== null && signature.revision >= revision.number).map((signature) => signature.field ?? 'unnamed'),
    })),
    trailing_bytes: scan.trailingBytes,
    signatures,
    active_content: active,
    hidden_text: pages.hidden,
    hidden_text_pages_read: pages.pagesRead,
    metadata,
    findings,
    risk: riskOf(findings),
  };
}

/** Opens the object view; a password problem or an unreadable file is the client's 422 on `pdf`/`password`. */
export async function openObjectsFor(bytes: Uint8Array, password: string | undefined): Promise<PdfObjects> {
  try {
    const objects = await openObjects(bytes, password);
    if (objects.pages.length === 0) throw TaskFailure.content('invalid-pdf-data', 'pdf', 'INVALID_PDF', 'has no pages (or its page tree cannot be read).');
    return objects;
  } catch (error) {
    if (!(error instanceof OpenFailure)) throw error;
    throw openFailure(error);
  }
}

/** Signature dictionary object number → the fully qualified name of the field whose /V it is. */
function signatureFields(objects: PdfObjects): Map<number, string> {
  const names = new Map<number, string>();
  const seen = new Set<unknown>();
  const walk = (entry: Parameters<PdfObjects['dict']>[0], prefix: string, depth: number): void => {
    const field = objects.dict(entry);
    if (field === undefined || seen.has(field) || depth > 32 || seen.size > 100_000) return;
    seen.add(field);
    const partial = objects.text(field.get('T'));
    const name = partial === undefined ? prefix : prefix === '' ? partial : `${prefix}.${partial}`;
    const value = field.get('V');
    if (value !== undefined && typeof value === 'object' && value !== null && 'num' in value && objects.name(field.get('FT')) === 'Sig') names.set((value as { num: number }).num, name);
    for (const kid of objects.array(field.get('Kids')) ?? []) walk(kid, name, depth + 1);
  };
  for (const entry of objects.array(objects.dict(objects.catalog?.get('AcroForm'))?.get('Fields')) ?? []) walk(entry, '', 0);
  return names;
}
