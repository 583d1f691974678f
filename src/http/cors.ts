// CORS for the exact origins in PLATEN_CORS_ORIGINS. The origin is echoed only
// when it is on the list (never reflected blindly), with Vary: Origin so that
// caches keep answers per origin. No credentials mode: keys travel in the
// Authorization header, which a preflight allows explicitly.
export const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, Location, Idempotent-Replayed, WWW-Authenticate';
export const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id, X-Tenant-ID, Approval-Id';
/** Browsers cache a preflight this long (seconds); Chromium caps it at 7200. */
const PREFLIGHT_MAX_AGE = '600';

export class Cors {
  readonly #origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.#origins = new Set(origins);
  }

  /** Headers for an actual (non-preflight) response to `origin`. */
  responseHeaders(origin: string): Array<[string, string]> {
    if (origin === '' || !this.#origins.has(origin)) return origin === '' ? [] : [['Vary', 'Origin']];
    return [
      ['Access-Control-Allow-Origin', origin],
      ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
      ['Vary', 'Origin'],
    ];
  }

  /** Headers for a preflight; none (so the browser refuses) when the origin or method is not allowed. */
  preflightHeaders(origin: string, requestedMethod: string, allowedMethods: readonly string[]): Array<[string, string]> {
    if (!this.#origins.has(origin) || !allowedMethods.includes(requestedMethod.toUpperCase())) return [['Vary', 'Origin']];
    return [
      ['Access-Control-Allow-Origin', origin],
      ['Access-Control-Allow-Methods', allowedMethods.join(', ')],
      ['Access-Control-Allow-Headers', ALLOWED_HEADERS],
      ['Access-Control-Max-Age', PREFLIGHT_MAX_AGE],
      ['Vary', 'Origin'],
    ];
  }
}
