// The `rag-embed` task (POST /v1/rag/embed). The request is validated here
// whichever model it names. For the built-in model the vectors are computed
// here too; for a model of the deployment's remote provider the task hands
// the validated inputs back (REMOTE_EMBED_MEDIA_TYPE) and the main thread,
// which owns outbound connections, calls the provider: a worker thread must
// not sit idle for a network round trip.
import * as v from 'valibot';
import type { RagEmbedOptions, RemoteEmbedMediaType, RemoteEmbedPlan } from '../protocol.js';
import { countTokens, loadTokenizer } from '../seams/tokenizer.js';
import { jsonTask, TaskFailure, type JsonResult } from '../task/json-task.js';
import { DEFAULT_DIMENSIONS, embedText, LEXICAL_MODEL, MAX_DIMENSIONS, MIN_DIMENSIONS } from './lexical-embedding.js';

const REMOTE_EMBED_MEDIA_TYPE: RemoteEmbedMediaType = 'application/vnd.platen.remote-embed+json';

const EmbedRequest = v.strictObject({
  inputs: v.pipe(
    v.array(v.strictObject({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(256)), text: v.string() })),
    v.minLength(1, 'must hold at least one input'),
  ),
  model: v.optional(v.pipe(v.string(), v.minLength(1)), LEXICAL_MODEL),
  options: v.optional(
    v.strictObject({
      normalize: v.optional(v.boolean(), true),
      dimensions: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    }),
    {},
  ),
});

type EmbedRequest = v.InferOutput<typeof EmbedRequest>;

export const ragEmbed = jsonTask(EmbedRequest, async (request: EmbedRequest, options: RagEmbedOptions): Promise<JsonResult> => {
  if (request.inputs.length > options.maxInputs) {
    throw TaskFailure.field('inputs', 'TOO_LONG', `holds ${request.inputs.length} inputs; one request embeds at most ${options.maxInputs} (PLATEN_EMBED_MAX_INPUTS)`);
  }
  const seen = new Set<string>();
  request.inputs.forEach((input, index) => {
    if (seen.has(input.id)) throw TaskFailure.field(`inputs[${index}].id`, 'DUPLICATE', `the id "${input.id}" is used by an earlier input; ids name the embeddings in the answer`);
    seen.add(input.id);
  });
  await loadTokenizer();
  if (request.model === LEXICAL_MODEL) return { data: embedLexical(request) };
  if (!options.remoteModels.includes(request.model)) {
    const models = [LEXICAL_MODEL, ...options.remoteModels];
    throw TaskFailure.field('model', 'UNKNOWN_MODEL', `"${request.model}" is not a model of this deployment; its models are: ${models.join(', ')}`);
  }
  return {
    mediaType: REMOTE_EMBED_MEDIA_TYPE,
    data: {
      model: request.model,
      dimensions: request.options.dimensions ?? null,
      normalize: request.options.normalize,
      inputs: request.inputs.map((input) => ({ id: input.id, text: input.text, token_count: countTokens(input.text) })),
    } satisfies RemoteEmbedPlan,
  };
});

function embedLexical(request: EmbedRequest) {
  const dimensions = request.options.dimensions ?? DEFAULT_DIMENSIONS;
  if (dimensions < MIN_DIMENSIONS || dimensions > MAX_DIMENSIONS) {
    throw TaskFailure.field('options.dimensions', 'OUT_OF_RANGE', `${LEXICAL_MODEL} makes vectors of ${MIN_DIMENSIONS} to ${MAX_DIMENSIONS} dimensions`);
  }
  return {
    model: LEXICAL_MODEL,
    dimensions,
    embeddings: request.inputs.map((input) => ({
      id: input.id,
      // Six decimals keep a cosine exact to ~1e-6 and the JSON a third the size of full doubles.
      vector: Array.from(embedText(input.text, dimensions, request.options.normalize), (x) => Math.round(x * 1e6) / 1e6),
      token_count: countTokens(input.text),
    })),
  };
}
