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

type FilterType = 'string' | 'integer' | 'boolean' | 'string-or-null' | 'string-or-strings';

/**
 * Filter paths, as a result names them (every member of a result but its
 * text and score), to the stored column and the type of its value.
 * `metadata.headings_path` is an array: a string is a heading it must
 * contain, at any depth; an array is a path it must start with (a section
 * and everything under it; [] starts every path).
 */
const FILTER_PATHS: Readonly<Record<string, { column: FilterColumn; type: FilterType }>> = {
  document_id: { column: 'document_id', type: 'string' },
  chunk_id: { column: 'chunk_id', type: 'string' },
  page: { column: 'page', type: 'integer' },
  section: { column: 'section', type: 'string' },
  'metadata.headings_path': { column: 'headings_path', type: 'string-or-strings' },
  'metadata.is_table': { column: 'is_table', type: 'boolean' },
  'metadata.language': { column: 'language', type: 'string-or-null' },
  'metadata.namespace': { column: 'namespace', type: 'string' },
  'metadata.token_count': { column: 'token_count', type: 'integer' },
};

const TYPE_NAMES: Readonly<Record<FilterType, string>> = {
  string: 'a string',
  integer: 'an integer',
  boolean: 'a boolean',
  'string-or-null': 'a string or null',
  'string-or-strings': 'a heading (string) or a path of headings (array of strings)',
};

/** Deeper than any outline a reader would navigate; keeps a filter's SQL small. */
const MAX_PATH_DEPTH = 32;

const SearchRequest = v.strictObject({
  query: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(MAX_QUERY_CHARACTERS)),
  vector_store: VectorStoreSchema,
  options: v.optional(
    v.strictObject({
      top_k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 5),
      min_score: v.optional(v.pipe(v.number(), v.minValue(-1), v.maxValue(1))),
      namespace: v.optional(NAMESPACE, ''),
      filter: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null(), v.array(v.unknown())])), {}),
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

function filterTerm(path: string, value: string | number | boolean | null | unknown[]): FilterTerm {
  const field = `options.filter.${path}`;
  const known = FILTER_PATHS[path];
  if (known === undefined) throw TaskFailure.field(field, 'INVALID_VALUE', `is not a path a filter can name; those are: ${Object.keys(FILTER_PATHS).join(', ')}`);
  if (!fits(known.type, value)) throw TaskFailure.field(field, 'INVALID_TYPE', `must be ${TYPE_NAMES[known.type]}`);
  if (Array.isArray(value) && value.length > MAX_PATH_DEPTH) throw TaskFailure.field(field, 'OUT_OF_RANGE', `may name at most ${MAX_PATH_DEPTH} headings`);
  return { column: known.column, value: value as FilterTerm['value'] };
}

function fits(type: FilterType, value: unknown): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'string-or-null':
      return value === null || typeof value === 'string';
    case 'string-or-strings':
      return typeof value === 'string' || (Array.isArray(value) && value.every((heading) => typeof heading === 'string'));
    default:
      return typeof value === type;
  }
}
