// The `merge` task (POST /api/v1/merge, core): several PDFs, or selections of
// their pages, into one, in order. Pages, annotations, form fields (clashing
// names renamed so both survive) and page labels come through qpdf
// (assemble.ts); the outline, internal links and the document information
// are carried over afterwards (structure.ts, through the pdf-lib seam).
// What qpdf will decode of each document is counted before anything reads
// it (assemble.ts openCounted, an encrypted one in the clear), so a deflate
// bomb is 422 pdf-limits-exceeded naming the document, not a 504; and
// before pdf-lib inflates a bombed object stream up to the cap (2 GiB of
// it: 3.9 s and 1.2 GB of RSS, now 0.3 s).
import * as v from 'valibot';
import type { DocOpsOptions } from '../protocol.js';
import { finishDocument, type DocumentInfo, type OutlineItem } from '../seams/pdf-structure.js';
import { binaryTask, TaskFailure, type BinaryResult } from '../task/json-task.js';
import { decodePdfField } from '../task/pdf-field.js';
import { selectPages } from '../task/page-selection.js';
import { assemblePages, openCounted, type AssemblySource } from './assemble.js';
import { DocumentMetadata, NO_DECODED_CAP, Password, PageSelectionText } from './fields.js';
import { mapLinks, mapOutline, pageMap } from './structure.js';
import { base64Member } from '../task/decoded-member.js';

/** Documents in one merge: enough for any batch a person assembles, bounded for the qpdf command line. */
export const MAX_MERGE_DOCUMENTS = 100;

const MergeRequest = v.strictObject({
  documents: v.pipe(
    v.array(
      v.strictObject({
        pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
        password: v.optional(Password),
        pages: v.optional(PageSelectionText),
      }),
    ),
    v.minLength(1, 'must hold at least one document'),
    v.maxLength(MAX_MERGE_DOCUMENTS, `must hold at most ${MAX_MERGE_DOCUMENTS} documents`),
  ),
  outline: v.optional(v.picklist(['keep', 'by_document', 'none']), 'keep'),
  metadata: v.optional(DocumentMetadata),
});

type MergeRequest = v.InferOutput<typeof MergeRequest>;

export const merge = binaryTask(MergeRequest, async (request: MergeRequest, options: DocOpsOptions): Promise<BinaryResult> => {
  const sources: AssemblySource[] = [];
  const outline: OutlineItem[] = [];
  const links: ReturnType<typeof mapLinks> = [];
  let info: DocumentInfo = {};
  let offset = 0;
  for (const [i, document] of request.documents.entries()) {
    const field = `documents[${i}]`;
    const { structure, bytes, password } = await openCounted(decodePdfField(document.pdf, `${field}.pdf`, NO_DECODED_CAP), document.password, `${field}.pdf`, `${field}.password`);
    const all = [...Array(structure.pageCount).keys()];
    const selection = document.pages === undefined ? all : selectPages(document.pages, structure.pageCount, `${field}.pages`, options.maxPages);
    if (offset + selection.length > options.maxPages) {
      throw TaskFailure.field('documents', 'TOO_LARGE', `The merged document would have more than ${options.maxPages} pages (PLATEN_MAX_PAGES).`);
    }
    const map = pageMap(selection, offset);
    const kept = request.outline === 'none' ? [] : mapOutline(structure.outline, map);
    if (request.outline === 'by_document') {
      outline.push({ title: structure.info.title ?? `Document ${i + 1}`, page: offset, view: ['Fit'], open: false, children: kept });
    } else {
      outline.push(...kept);
    }
    links.push(...mapLinks(structure.links, selection, map));
    if (i === 0) info = structure.info;
    sources.push({ bytes, password, pages: selection, field: `${field}.pdf` });
    offset += selection.length;
  }
  const assembled = await assemblePages(sources);
  const metadata = request.metadata === undefined ? { ...info, producer: 'Platen' } : { ...request.metadata, producer: 'Platen' };
  return { bytes: await finishDocument(assembled, { outline, links, info: metadata }), mediaType: 'application/pdf' };
}, { binaryFields: ['pdf'] });
