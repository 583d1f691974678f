// The main thread's half of /v1/rag/embed for a remote model: the worker has
// validated the request and counted its tokens (RemoteEmbedPlan); this calls
// the provider and writes the envelope's `data`. A ProviderFailure becomes
// 502 `embeddings-provider-failed`, its log detail kept off the response.
import type { AccelValue, RemoteEmbedPlan } from '../../../workers/protocol.js';
import { HttpProblem } from '../../http/problem.js';
import { ProviderFailure, type EmbeddingsProvider } from './embeddings-provider.js';

const encoder = new TextEncoder();

export function remoteEmbed(provider: EmbeddingsProvider | undefined) {
  return async (value: AccelValue, signal: AbortSignal): Promise<Uint8Array> => {
    // The task hands a plan back only for a model of the configured provider.
    if (provider === undefined) throw new Error('a remote embedding plan without a configured provider');
    const plan = JSON.parse(Buffer.from(value.body).toString('utf8')) as RemoteEmbedPlan;
    try {
      const { dimensions, embeddings } = await provider.embed(plan, signal);
      return encoder.encode(JSON.stringify({ model: plan.model, dimensions, embeddings }));
    } catch (error) {
      if (!(error instanceof ProviderFailure)) throw error;
      throw new HttpProblem('embeddings-provider-failed', {
        detail: `The embeddings provider of this deployment failed: ${error.message}. Try again later, or use the built-in model platen-lexical-v1.`,
        ...(error.logDetail === undefined ? {} : { cause: error.logDetail }),
      });
    }
  };
}
