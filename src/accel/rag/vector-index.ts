// The main thread's half of POST /v1/rag/index: the rag-index task has
// chunked the PDF and embedded it with the built-in model (or, for a remote
// model, handed the texts back); this embeds remotely when needed and writes
// the chunks to the vector store the request names, in the caller's own
// collection of that name.
import type { AccelValue, IndexPlan } from '../../../workers/protocol.js';
import { HttpProblem } from '../../http/problem.js';
import type { RouteContext } from '../../http/route.js';
import { ModelMismatch, type CollectionKey } from '../../store/vectors/collections.js';
import type { VectorStores } from '../../store/vectors/stores.js';
import type { EmbeddingsProvider } from './embeddings-provider.js';
import { embedRemotely } from './remote-embed.js';
import { storeProblem } from './store-problem.js';

const encoder = new TextEncoder();

export function indexDocument(stores: VectorStores, provider: EmbeddingsProvider | undefined) {
  return async (value: AccelValue, context: RouteContext): Promise<Uint8Array> => {
    const plan = JSON.parse(Buffer.from(value.body).toString('utf8')) as IndexPlan;
    const key: CollectionKey = { owner: ownerOf(context), name: plan.vector_store.collection };
    const { dimensions, vectors } = await vectorsOf(plan, provider, context.signal);
    let written: number;
    try {
      written = await stores.usingIndex(plan.vector_store, async (collections) =>
        plan.chunks.length === 0 ? 0 : collections.write(key, { model: plan.model, dimensions }, { documentId: plan.document_id, namespace: plan.namespace, upsert: plan.upsert, chunks: plan.chunks, vectors }),
      );
      await stores.remember(key, plan.vector_store);
    } catch (error) {
      if (error instanceof ModelMismatch) {
        const message = `the collection "${key.name}" holds vectors of ${error.existing.model} with ${error.existing.dimensions} dimensions; index with that embedding_model and those dimensions, or into another collection`;
        throw new HttpProblem('validation-failed', { detail: `options.embedding_model: ${message}`, errors: [{ field: 'options.embedding_model', code: 'INVALID_VALUE', message }] });
      }
      throw storeProblem(error);
    }
    return encoder.encode(
      JSON.stringify({
        document_id: plan.document_id,
        chunks_indexed: plan.chunks.length,
        vectors_upserted: written,
        collection: key.name,
        namespace: plan.namespace,
        model: plan.model,
        dimensions,
        duration_ms: Math.round(performance.now() - context.receivedAt),
      }),
    );
  };
}

/** The client a collection belongs to: its key label (keys sharing a label are one client). */
export function ownerOf(context: RouteContext): string {
  // Index and search are enterprise routes: the pipeline has authenticated the caller.
  if (context.principal === undefined) throw new Error('a vector store route without a principal');
  return context.principal.label;
}

async function vectorsOf(plan: IndexPlan, provider: EmbeddingsProvider | undefined, signal: AbortSignal): Promise<{ dimensions: number; vectors: Float32Array[] }> {
  if (plan.vectors !== null && plan.dimensions !== null) {
    const bytes = Buffer.from(plan.vectors, 'base64');
    // Copied into an aligned buffer of its own: a Buffer may start at any byte of Node's pool.
    const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const d = plan.dimensions;
    return { dimensions: d, vectors: plan.chunks.map((_, i) => all.subarray(i * d, (i + 1) * d)) };
  }
  if (plan.remote === null) throw new Error('an index plan with neither vectors nor a remote model');
  if (plan.remote.inputs.length === 0) return { dimensions: plan.dimensions ?? 0, vectors: [] };
  const { dimensions, embeddings } = await embedRemotely(provider, plan.remote, signal);
  return { dimensions, vectors: embeddings.map((e) => Float32Array.from(e.vector)) };
}
