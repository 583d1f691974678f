// The `rag-search` task (POST /v1/rag/search): validates the request, its
// filter above all, and hands it back as a SearchPlan. Which model embeds
// the query is the collection's, which only the store knows: the main thread
// looks it up, then has the query embedded by rag-embed.
import * as v from 'valibot';
import type { FilterColumn, FilterTerm, SearchPlan, SearchPlanMediaType } from '../protocol.js';
import { jsonTask, TaskFailure, type JsonResult } from '../task/json-task.js';
import { NAMESPACE } from './index-task.js';
import { VectorStoreSchema, vectorStoreRef } from './vector-store-ref.js';

const SEARCH_PLAN_MEDIA_TYPE: SearchPlanMediaType = 'application/vnd.platen.search-plan+json';

/** The longest query: a question, or a passage to find its like; longer is a document, which is what index is for. */
export const MAX_QUERY_CHARACTERS = 8192;

/** Filter paths, as a result names them, to the stored column and the type of its value. */
const FILTER_PATHS: Readonly<Record<string, { column: FilterColumn; type: 'string' | 'integer' | 'boolean' | 'string-or-null' }>> = {
  document_id: { column: 'document_id', type: 'string' },
  chunk_id: { column: 'chunk_id', type: 'string' },
  page: { column: 'page', type: 'integer' },
  section: { column: 'section', type: 'string' },
  'metadata.is_table': { column: 'is_table', type: 'boolean' },
  'metadata.language': { column: 'language', type: 'string-or-null' },
};

const SearchRequest = v.strictObject({
  query: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(MAX_QUERY_CHARACTERS)),
  vector_store: VectorStoreSchema,
  options: v.optional(
    v.strictObject({
      top_k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 5),
      min_score: v.optional(v.pipe(v.number(), v.minValue(-1), v.maxValue(1))),
      namespace: v.optional(NAMESPACE, ''),
      filter: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()])), {}),
    }),
    {},
  ),
});

export const ragSearch = jsonTask(SearchRequest, (request): JsonResult => {
  const plan: SearchPlan = {
    query: request.query,
    vector_store: vectorStoreRef(request.vector_store, false),
    top_k: request.options.top_k,
    min_score: request.options.min_score ?? null,
    namespace: request.options.namespace,
    filter: Object.entries(request.options.filter).map(([path, value]) => filterTerm(path, value)),
  };
  return { mediaType: SEARCH_PLAN_MEDIA_TYPE, data: plan };
});

function filterTerm(path: string, value: string | number | boolean | null): FilterTerm {
  const field = `options.filter.${path}`;
  const known = FILTER_PATHS[path];
  if (known === undefined) throw TaskFailure.field(field, 'INVALID_VALUE', `is not a path a filter can name; those are: ${Object.keys(FILTER_PATHS).join(', ')}`);
  const fits =
    known.type === 'integer' ? typeof value === 'number' && Number.isInteger(value) : known.type === 'string-or-null' ? value === null || typeof value === 'string' : typeof value === known.type;
  if (!fits) throw TaskFailure.field(field, 'INVALID_TYPE', `must be ${known.type === 'string-or-null' ? 'a string or null' : `a ${known.type}`}`);
  return { column: known.column, value };
}
