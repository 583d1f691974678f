// The main thread's half of /v1/rag/embed for a remote model: the worker has
// validated the request and counted its tokens (RemoteEmbedPlan); this calls
// the provider and writes the envelope's `data`. A ProviderFailure becomes
// 502 `embeddings-provider-failed`, its log detail kept off the response.
// /v1/rag/index and /v1/rag/search embed through embedRemotely too.
import type { AccelValue, RemoteEmbedPlan } from '../../../workers/protocol.js';
import { HttpProblem } from '../../http/problem.js';
import type { RouteContext } from '../../http/route.js';
import type { EmbeddedInput, EmbeddingsProvider } from './embeddings-provider.js';
import { ProviderFailure } from './provider-failure.js';

const encoder = new TextEncoder();

export function remoteEmbed(provider: EmbeddingsProvider | undefined) {
  return async (value: AccelValue, context: RouteContext): Promise<Uint8Array> => {
    const plan = JSON.parse(Buffer.from(value.body).toString('utf8')) as RemoteEmbedPlan;
    const { dimensions, embeddings } = await embedRemotely(provider, plan, context.signal);
    return encoder.encode(JSON.stringify({ model: plan.model, dimensions, embeddings }));
  };
}

/** The plan's vectors from the provider; its failure as 502 `embeddings-provider-failed`. */
export async function embedRemotely(provider: EmbeddingsProvider | undefined, plan: RemoteEmbedPlan, signal: AbortSignal): Promise<{ dimensions: number; embeddings: EmbeddedInput[] }> {
  // The tasks hand a plan back only for a model of the configured provider.
  if (provider === undefined) throw new Error('a remote embedding plan without a configured provider');
  try {
    return await provider.embed(plan, signal);
  } catch (error) {
    if (!(error instanceof ProviderFailure)) throw error;
    throw new HttpProblem('embeddings-provider-failed', {
      detail: `The embeddings provider of this deployment failed: ${error.message}. Try again later, or use the built-in model platen-lexical-v1.`,
      ...(error.logDetail === undefined ? {} : { cause: error.logDetail }),
    });
  }
}
