// A dependency the request needs (Redis, in the multi-node mode) cannot be
// reached. Stores throw it; the pipeline answers 503 `store-unavailable`
// with Retry-After. It lives outside src/http and src/store so that neither
// layer imports the other.
export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: string,
    readonly retryAfterSeconds: number = 1,
  ) {
    super(`${dependency} is unavailable`);
    this.name = 'DependencyUnavailable';
  }
}
