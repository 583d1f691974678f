// How a vector store's failures reach the client: a refused endpoint address
// is the request's fault (422 on vector_store.endpoint), a store that fails
// is 502 `vector-store-failed` with what it said kept for the log. Anything
// else is passed on (a bug: 500; Redis down: 503 store-unavailable).
import { HttpProblem } from '../../http/problem.js';
import { AddressDenied } from '../../store/vectors/address-policy.js';
import { VectorStoreFailure } from '../../store/vectors/collections.js';

export function storeProblem(error: unknown): unknown {
  if (error instanceof AddressDenied) {
    return new HttpProblem('validation-failed', { detail: `vector_store.endpoint: ${error.message}`, errors: [{ field: 'vector_store.endpoint', code: 'INVALID_VALUE', message: error.message }] });
  }
  if (error instanceof VectorStoreFailure) {
    return new HttpProblem('vector-store-failed', {
      detail: `The vector store failed: ${error.message}.`,
      ...(error.logDetail === undefined ? {} : { cause: error.logDetail }),
    });
  }
  return error;
}
