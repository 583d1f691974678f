// The main thread's half of POST /v1/rag/search: the rag-search task has
// validated the request; this finds the caller's collection, has the query
// embedded with the collection's model (the rag-embed task, or the remote
// provider), and asks the store for the nearest chunks. Another client's
// collection is as unknown as one that does not exist: 404 either way.
import type { AccelValue, RagEmbedOptions, RemoteEmbedPlan, SearchPlan } from '../../../workers/protocol.js';
import { dispatch } from '../../http/dispatch.js';
import { HttpProblem } from '../../http/problem.js';
import type { RouteContext } from '../../http/route.js';
import type { WorkerPool } from '../../pool/pool.js';
import type { CollectionKey, CollectionModel } from '../../store/vectors/collections.js';
import type { VectorStores } from '../../store/vectors/stores.js';
import type { EmbeddingsProvider } from './embeddings-provider.js';
import { embedRemotely } from './remote-embed.js';
import { storeProblem } from './store-problem.js';
import { ownerOf } from './vector-index.js';

const encoder = new TextEncoder();

export interface SearchDeps {
  readonly pool: WorkerPool;
  readonly stores: VectorStores;
  readonly provider: EmbeddingsProvider | undefined;
  readonly embedOptions: RagEmbedOptions;
}

export function searchCollection(deps: SearchDeps) {
  return async (value: AccelValue, context: RouteContext): Promise<Uint8Array> => {
    const plan = JSON.parse(Buffer.from(value.body).toString('utf8')) as SearchPlan;
    const key: CollectionKey = { owner: ownerOf(context), name: plan.vector_store.collection };
    const notFound = new HttpProblem('not-found', {
      detail:
        plan.vector_store.backend === 'embedded'
          ? `You have no collection "${key.name}" in the embedded store; index a document into it first (POST /v1/rag/index).`
          : `You have no pgvector collection "${key.name}" this server knows of; index into it first, or name its vector_store.endpoint.`,
    });
    try {
      return await deps.stores.usingSearch(key, plan.vector_store, async (collections) => {
        if (collections === undefined) throw notFound;
        const model = await collections.model(key);
        if (model === undefined) throw notFound;
        const vector = await embedQuery(deps, context, plan.query, model);
        const results = await collections.search(key, { vector, topK: plan.top_k, minScore: plan.min_score, namespace: plan.namespace, filter: plan.filter });
        return encoder.encode(JSON.stringify({ results, model: model.model, collection: key.name, namespace: plan.namespace, took_ms: Math.round(performance.now() - context.receivedAt) }));
      });
    } catch (error) {
      throw storeProblem(error);
    }
  };
}

/** The query's vector, made the way the collection's vectors were. */
async function embedQuery(deps: SearchDeps, context: RouteContext, query: string, model: CollectionModel): Promise<Float32Array> {
  const request = encoder.encode(JSON.stringify({ inputs: [{ id: 'query', text: query }], model: model.model, options: { normalize: true, dimensions: model.dimensions } }));
  const embedded = await dispatch(deps.pool, context, 'rag-embed', deps.embedOptions, { buffer: request.buffer as ArrayBuffer, length: request.length });
  const answer = JSON.parse(Buffer.from(embedded.body).toString('utf8')) as unknown;
  if (embedded.mediaType === 'application/json') {
    const vector = Float32Array.from((answer as { embeddings: { vector: number[] }[] }).embeddings[0]?.vector ?? []);
    // platen-lexical-v1 gives a text without words (spaces, punctuation) the zero vector, which is
    // near nothing: an empty answer would read as "no such text here" when it was never searched.
    if (vector.every((x) => x === 0)) {
      const message = `has no words for ${model.model} to search by (it embeds words, numbers and their pieces, not spaces or punctuation)`;
      throw new HttpProblem('validation-failed', { detail: `query: ${message}`, errors: [{ field: 'query', code: 'INVALID_VALUE', message }] });
    }
    return vector;
  }
  const { embeddings } = await embedRemotely(deps.provider, answer as RemoteEmbedPlan, context.signal);
  const vector = Float32Array.from(embeddings[0]?.vector ?? []);
  if (vector.length !== model.dimensions) {
    throw new HttpProblem('embeddings-provider-failed', { detail: `The embeddings provider answered a query vector of ${vector.length} dimensions for a collection of ${model.dimensions}; the provider's model has changed since the collection was indexed.` });
  }
  return vector;
}
