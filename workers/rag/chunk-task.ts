// The `rag-chunk` task (POST /v1/rag/chunk): a PDF cut into chunks a
// retrieval system can embed, by structure (semantic), by token windows
// (fixed) or by page, each with its page, section, heading path, token
// count and language. The document id is a digest of the PDF's bytes, so
// the same PDF always gets the same id (and the same chunk ids), which is
// what lets /v1/rag/index replace a document's chunks on upsert.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { ReadOptions } from '../protocol.js';
import { openReader } from '../read/reader.js';
import { decodePdf, WorkBudget } from '../read/request.js';
import { detectLanguage, loadLanguageDetector } from '../seams/language-detect.js';
import { loadTokenizer, countTokens, TOKENIZER_NAME } from '../seams/tokenizer.js';
import { jsonTask, TaskFailure, type JsonResult } from '../task/json-task.js';
import { chunkElements, type Chunk } from './chunk.js';
import { readElements } from './document.js';
import { base64Member, type Base64Value } from '../task/decoded-member.js';

export const LanguageTag = v.pipe(v.string(), v.regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'must be a BCP 47 language tag, e.g. "en" or "pt-BR"'));

export const ChunkOptions = v.strictObject({
  strategy: v.optional(v.picklist(['semantic', 'fixed', 'page'] as const), 'semantic'),
  max_chunk_size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(32), v.maxValue(8192)), 512),
  chunk_overlap: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  preserve_structure: v.optional(v.boolean(), true),
  language: v.optional(LanguageTag),
});

/**
 * The overlap when the request gives none: a quarter of the chunk, at most
 * 64 tokens (64 at the default 512). A fixed 64 refused every max_chunk_size
 * from 32 to 64 sent alone, blaming a chunk_overlap the client never sent.
 */
export function defaultOverlap(maxChunkSize: number): number {
  return Math.min(64, Math.floor(maxChunkSize / 4));
}

const ChunkRequest = v.strictObject({
  pdf_data: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.string()),
  options: v.optional(ChunkOptions, {}),
});

/** The accelerator contract's Chunk. */
export interface ChunkRecord {
  readonly chunk_id: string;
  readonly text: string;
  readonly page: number;
  readonly section: string;
  readonly token_count: number;
  readonly metadata: { readonly headings_path: readonly string[]; readonly is_table: boolean; readonly language: string | null };
}

export interface ChunkedDocument {
  readonly document_id: string;
  readonly page_count: number;
  readonly language: string | null;
  readonly tokenizer: string;
  readonly chunk_count: number;
  readonly chunks: readonly ChunkRecord[];
}

/** Reads and chunks a PDF: shared by rag-chunk and the chunking step of rag-index. */
export async function chunkPdf(
  base64: Base64Value,
  password: string | undefined,
  options: v.InferOutput<typeof ChunkOptions>,
  limits: ReadOptions,
): Promise<ChunkedDocument> {
  const overlap = options.chunk_overlap ?? defaultOverlap(options.max_chunk_size);
  if (overlap >= options.max_chunk_size) {
    throw TaskFailure.field('options.chunk_overlap', 'OUT_OF_RANGE', `must be smaller than max_chunk_size (${options.max_chunk_size})`);
  }
  const bytes = decodePdf(base64, 'pdf_data');
  const documentId = `doc_${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}`;
  await Promise.all([loadTokenizer(), loadLanguageDetector()]);
  const document = await openReader(bytes, password, { data: 'pdf_data', password: 'password' });
  try {
    if (document.pageCount > limits.maxPages) {
      throw TaskFailure.field('pdf_data', 'TOO_LARGE', `the PDF has ${document.pageCount} pages; this server chunks at most ${limits.maxPages} (PLATEN_MAX_PAGES) in one request`);
    }
    const elements = await readElements(document, options.preserve_structure, new WorkBudget(limits.workBudget, 'pdf_data'));
    const language = options.language ?? detectLanguage(elements.map((e) => (e.kind === 'table' ? '' : e.text)).join('\n'));
    const chunks = chunkElements(elements, {
      strategy: options.strategy,
      maxTokens: options.max_chunk_size,
      overlapTokens: overlap,
      preserveStructure: options.preserve_structure,
      language: language ?? undefined,
    });
    return {
      document_id: documentId,
      page_count: document.pageCount,
      language,
      tokenizer: TOKENIZER_NAME,
      chunk_count: chunks.length,
      chunks: chunks.map((chunk, index) => record(documentId, index, chunk, language)),
    };
  } finally {
    await document.close();
  }
}

function record(documentId: string, index: number, chunk: Chunk, language: string | null): ChunkRecord {
  return {
    chunk_id: `${documentId}_${String(index).padStart(5, '0')}`,
    text: chunk.text,
    page: chunk.page,
    section: chunk.headings.at(-1) ?? '',
    token_count: countTokens(chunk.text),
    metadata: { headings_path: chunk.headings, is_table: chunk.isTable, language },
  };
}

export const ragChunk = jsonTask(
  ChunkRequest,
  async (request, options: ReadOptions): Promise<JsonResult> => ({ data: await chunkPdf(request.pdf_data, request.password, request.options, options) }),
  { binaryFields: ['pdf_data'] },
);
