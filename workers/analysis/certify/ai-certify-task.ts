// The `ai-certify` capability (POST /api/v1/ai-certify, enterprise): a
// signed certificate of whether a PDF is fit to feed a language model
// (`purpose: ingestion`): a text layer on every page, a reading order
// extraction can follow, a known language, tables that come out whole, and
// no text a person cannot see but a model would read (forensic-analyze's
// hidden-text walk: how prompt injection hides). One pass over the pages
// with the reader gathers every fact; checks.ts turns them into checks and
// scores. The certificate is a compact JWS (RFC 7515) signed with Ed25519
// (RFC 8037, alg EdDSA) in this worker, so anyone can verify it offline
// with the public JWK the response carries.
import { createHash, randomUUID } from 'node:crypto';
import { CompactSign } from 'jose';
import * as v from 'valibot';
import type { CertifyOptions } from '../../protocol.js';
import { imagePlacements } from '../../read/images.js';
import { openReader } from '../../read/reader.js';
import { pageTables } from '../../read/tables/page-tables.js';
import type { TextItem } from '../../read/types.js';
import { detectLanguage, loadLanguageDetector } from '../../seams/language-detect.js';
import { jsonTask, type JsonResult } from '../../task/json-task.js';
import { decodePdfField } from '../../task/pdf-field.js';
import { openObjectsFor, READ_FIELDS } from '../forensic/forensic-analyze-task.js';
import { scanPages } from '../forensic/page-scan.js';
import { attestationKey } from './attestation-key.js';
import { runChecks, verdictOf, type PageFacts } from './checks.js';
import { base64Member } from '../../task/decoded-member.js';

const CertifyRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'))),
  purpose: v.optional(v.picklist(['ingestion'] as const, 'must be ingestion'), 'ingestion'),
});

type CertifyRequest = v.InferOutput<typeof CertifyRequest>;

/** Text given to the language detector at most (it decides within a few thousand characters: seams/language-detect.ts). */
const LANGUAGE_SAMPLE = 4000;
/** Runs compared for overlap per page at most (the comparison is quadratic in the worst case). */
const MAX_OVERLAP_RUNS = 3000;
/** Degrees off the page axes a run may be and still read as horizontal or vertical text. */
const AXIS_TOLERANCE = 1;
/** The JWS header's typ (RFC 7515 4.1.9): what the payload is. */
const CERTIFICATE_TYPE = 'platen-ai-certificate+json';

export const aiCertify = jsonTask(CertifyRequest, async (request: CertifyRequest, options: CertifyOptions): Promise<JsonResult> => {
  const bytes = decodePdfField(request.pdf, 'pdf');
  const key = attestationKey(options.attestationKeyFile, options.dataDir);
  const objects = await openObjectsFor(bytes, request.password);
  const catalog = objects.catalog;
  const markInfo = objects.dict(catalog?.get('MarkInfo'));
  const info = objects.dict(objects.trailer.get('Info'));
  await loadLanguageDetector();

  const document = await openReader(bytes.slice(), request.password, READ_FIELDS);
  const pages: PageFacts[] = [];
  let sample = '';
  let scan;
  try {
    scan = await scanPages(document, options, async (page, items) => {
      const operators = await page.operators();
      const tables = pageTables(items, operators);
      const cells = tables.flatMap((table) => table.cells);
      pages.push({
        page: page.number,
        characters: items.reduce((sum, item) => sum + item.text.replace(/\s+/g, '').length, 0),
        images: imagePlacements(operators).length,
        disorderedCharacters: disordered(items),
        tables: tables.length,
        cells: cells.length,
        filledCells: cells.filter((cell) => cell.text.trim() !== '').length,
      });
      for (const item of items) {
        if (sample.length >= LANGUAGE_SAMPLE) break;
        if (!item.invisible) sample += `${item.text} `;
      }
    });
  } finally {
    await document.close();
  }

  const { checks, scores } = runChecks({
    pages,
    detectedLanguage: sample.trim() === '' ? null : detectLanguage(sample),
    declaredLanguage: objects.text(catalog?.get('Lang')) ?? null,
    tagged: objects.resolve(markInfo?.get('Marked')) === true && catalog?.has('StructTreeRoot') === true,
    hasOutline: objects.dict(objects.dict(catalog?.get('Outlines'))?.get('First')) !== undefined,
    hasTitle: (objects.text(info?.get('Title')) ?? '').trim() !== '',
    hidden: scan.hidden,
  });
  const certificate = {
    certificate_id: randomUUID(),
    issued_at: new Date().toISOString(),
    document_sha256: createHash('sha256').update(bytes).digest('hex'),
    purpose: request.purpose,
    verdict: verdictOf(checks),
    page_count: objects.pages.length,
    pages_checked: scan.pagesRead,
    checks,
    scores,
  };
  const signing = await key;
  const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(certificate)))
    .setProtectedHeader({ alg: 'EdDSA', kid: signing.kid, typ: CERTIFICATE_TYPE })
    .sign(signing.privateKey);
  return { data: { ...certificate, jws, jwk: signing.jwk } };
}, { binaryFields: ['pdf'] });

/** Characters of runs rotated off the page axes, or drawn over another run with different text. */
function disordered(items: readonly TextItem[]): number {
  const flagged = new Set<TextItem>();
  for (const item of items) {
    const off = item.rotation % 90;
    if (Math.min(off, 90 - off) > AXIS_TOLERANCE) flagged.add(item);
  }
  const runs = items.filter((item) => item.text.trim() !== '' && !item.invisible).slice(0, MAX_OVERLAP_RUNS).sort((a, b) => a.y - b.y);
  for (let i = 0; i < runs.length; i++) {
    const a = runs[i] as TextItem;
    for (let j = i + 1; j < runs.length; j++) {
      const b = runs[j] as TextItem;
      if (b.y >= a.y + a.height) break;
      const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      if (width <= 0 || height <= 0 || a.text === b.text) continue;
      // Half of the smaller run covered: text printed over text, which extraction interleaves.
      const smaller = Math.min(a.width * a.height, b.width * b.height);
      if (width * height >= smaller / 2) {
        flagged.add(a);
        flagged.add(b);
      }
    }
  }
  let characters = 0;
  for (const item of flagged) characters += item.text.replace(/\s+/g, '').length;
  return characters;
}
