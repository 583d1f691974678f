// The `rag-index` task (POST /v1/rag/index): chunk the PDF (the chunking of
// rag-chunk), embed the chunks with the built-in model, and hand the result
// back as an IndexPlan for the main thread to write to the vector store: the
// stores (LanceDB's native threads, a PostgreSQL connection) are the main
// thread's, and a worker must not sit idle through their I/O. For a remote
// model the plan carries the texts instead, as rag-embed does.
import * as v from 'valibot';
import type { IndexPlan, IndexPlanMediaType, RagIndexOptions } from '../protocol.js';
import { jsonTask, TaskFailure, type JsonResult } from '../task/json-task.js';
import { chunkPdf, LanguageTag } from './chunk-task.js';
import { DEFAULT_DIMENSIONS, embedText, LEXICAL_MODEL, MAX_DIMENSIONS, MIN_DIMENSIONS } from './lexical-embedding.js';
import { VectorStoreSchema, vectorStoreRef } from './vector-store-ref.js';
import { base64Member } from '../task/decoded-member.js';

const INDEX_PLAN_MEDIA_TYPE: IndexPlanMediaType = 'application/vnd.platen.index-plan+json';

export const NAMESPACE = v.pipe(v.string(), v.maxLength(128));

const IndexRequest = v.strictObject({
  pdf_data: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.string()),
  vector_store: VectorStoreSchema,
  options: v.optional(
    v.strictObject({
      chunking_strategy: v.optional(v.picklist(['semantic', 'fixed', 'page'] as const), 'semantic'),
      max_chunk_size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(32), v.maxValue(8192)), 512),
      chunk_overlap: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      preserve_structure: v.optional(v.boolean(), true),
      language: v.optional(LanguageTag),
      embedding_model: v.optional(v.pipe(v.string(), v.minLength(1)), LEXICAL_MODEL),
      dimensions: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      upsert: v.optional(v.boolean(), true),
      namespace: v.optional(NAMESPACE, ''),
    }),
    {},
  ),
});

export const ragIndex = jsonTask(
  IndexRequest,
  async (request, options: RagIndexOptions): Promise<JsonResult> => {
    const { options: o } = request;
    const store = vectorStoreRef(request.vector_store, true);
    const remote = o.embedding_model !== LEXICAL_MODEL;
    if (remote && !options.remoteModels.includes(o.embedding_model)) {
      const models = [LEXICAL_MODEL, ...options.remoteModels];
      throw TaskFailure.field('options.embedding_model', 'UNKNOWN_MODEL', `"${o.embedding_model}" is not a model of this deployment; its models are: ${models.join(', ')}`);
    }
    const dimensions = remote ? (o.dimensions ?? null) : (o.dimensions ?? DEFAULT_DIMENSIONS);
    if (!remote && dimensions !== null && (dimensions < MIN_DIMENSIONS || dimensions > MAX_DIMENSIONS)) {
      throw TaskFailure.field('options.dimensions', 'OUT_OF_RANGE', `${LEXICAL_MODEL} makes vectors of ${MIN_DIMENSIONS} to ${MAX_DIMENSIONS} dimensions`);
    }
    const chunked = await chunkPdf(
      request.pdf_data,
      request.password,
      { strategy: o.chunking_strategy, max_chunk_size: o.max_chunk_size, chunk_overlap: o.chunk_overlap, preserve_structure: o.preserve_structure, language: o.language },
      options,
    );
    const plan: IndexPlan = {
      document_id: chunked.document_id,
      page_count: chunked.page_count,
      vector_store: store,
      upsert: o.upsert,
      namespace: o.namespace,
      model: o.embedding_model,
      dimensions,
      chunks: chunked.chunks,
      vectors: remote ? null : lexicalVectors(chunked.chunks.map((chunk) => chunk.text), dimensions as number),
      remote: remote
        ? { model: o.embedding_model, dimensions, normalize: true, inputs: chunked.chunks.map((chunk) => ({ id: chunk.chunk_id, text: chunk.text, token_count: chunk.token_count })) }
        : null,
    };
    return { mediaType: INDEX_PLAN_MEDIA_TYPE, data: plan };
  },
  { binaryFields: ['pdf_data'] },
);

/** Every text's unit vector, one after another, as base64 of little-endian float32s. */
function lexicalVectors(texts: readonly string[], dimensions: number): string {
  const all = new Float32Array(texts.length * dimensions);
  texts.forEach((text, i) => all.set(embedText(text, dimensions, true), i * dimensions));
  return Buffer.from(all.buffer, all.byteOffset, all.byteLength).toString('base64');
}
