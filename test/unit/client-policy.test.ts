// The client library's decisions without a server: retry delays and what is
// retried, Retry-After parsing, the circuit breaker's states on a fake
// clock, NO_PROXY matching, and the base64 codec of the typed methods.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CircuitBreaker } from '../../src/client/breaker.js';
import { ShapeError, decodeEnvelope, decodeSubsetFont, encodeSubsetFont } from '../../src/client/codec.js';
import { PlatenHttpError, PlatenNetworkError, PlatenProblemError, PlatenTimeoutError } from '../../src/client/errors.js';
import { bypasses, proxyFor } from '../../src/client/proxy.js';
import { isRetryable, laterOf, parseRetryAfter, retryDelayMs, retryPolicy, serverDelaySeconds } from '../../src/client/retry.js';

const problem = (status: number, slug: string, retryAfter?: number) =>
  new PlatenProblemError({ type: `https://platen.dev/errors/${slug}`, title: 't', status, detail: 'd' }, status, 'id', retryAfter);

describe('retry policy', () => {
  const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1_000 });

  test('429, 503 and transient connection failures are retried; nothing else is', () => {
    assert.equal(isRetryable(problem(429, 'rate-limit-exceeded', 1)), true);
    assert.equal(isRetryable(problem(503, 'worker-pool-exhausted', 1)), true);
    assert.equal(isRetryable(new PlatenHttpError(503, 'text/html', undefined, undefined)), true);
    assert.equal(isRetryable(new PlatenNetworkError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), undefined)), true);
    assert.equal(isRetryable(new PlatenNetworkError(Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }), undefined)), false);
    assert.equal(isRetryable(new PlatenNetworkError(new Error('Bad response: 407'), undefined)), false);
    for (const [status, slug] of [[400, 'bad-request'], [422, 'validation-failed'], [500, 'internal'], [504, 'request-timeout']] as const) {
      assert.equal(isRetryable(problem(status, slug)), false, slug);
    }
    assert.equal(isRetryable(new PlatenTimeoutError(10, undefined)), false);
  });

  test("the server's delay is honoured, with up to 20% jitter above it", () => {
    assert.equal(retryDelayMs(policy, 1, 2, () => 0), 2_000);
    assert.equal(retryDelayMs(policy, 1, 2, () => 0.999_999), 2_400);
    // Even past maxDelayMs: the cap is for backoff the client chooses itself.
    assert.equal(retryDelayMs(policy, 5, 30, () => 0), 30_000);
    assert.equal(serverDelaySeconds(problem(429, 'rate-limit-exceeded', 7)), 7);
  });

  test('without one, exponential backoff with equal jitter, capped', () => {
    const bounds = (attempt: number) => [retryDelayMs(policy, attempt, undefined, () => 0), retryDelayMs(policy, attempt, undefined, () => 1)];
    assert.deepEqual(bounds(1), [50, 100]);
    assert.deepEqual(bounds(2), [100, 200]);
    assert.deepEqual(bounds(4), [400, 800]);
    assert.deepEqual(bounds(10), [500, 1_000]);
  });

  test('Retry-After: delay-seconds or an HTTP-date; junk is ignored', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3);
    assert.equal(parseRetryAfter(' 120 ', now), 120);
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now), 0);
    for (const junk of [undefined, '', '-1', '1.5', 'soon', '2025-01-01']) assert.equal(parseRetryAfter(junk, now), undefined, String(junk));
    assert.equal(laterOf(2, 5), 5);
    assert.equal(laterOf(undefined, 5), 5);
    assert.equal(laterOf(2, undefined), 2);
  });

  test('bad options are refused at construction', () => {
    assert.throws(() => retryPolicy({ maxAttempts: 0 }), TypeError);
    assert.throws(() => retryPolicy({ maxAttempts: 1.5 }), TypeError);
    assert.throws(() => retryPolicy({ maxElapsedMs: -1 }), TypeError);
    assert.equal(retryPolicy().maxAttempts, 3);
  });
});

describe('circuit breaker', () => {
  const clock = () => {
    let now = 0;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  test('opens after N consecutive failures; a success in between resets the count', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ threshold: 3, cooldownMs: 1_000 }, time.now);
    breaker.admit()?.failed();
    breaker.admit()?.failed();
    breaker.admit()?.succeeded();
    breaker.admit()?.failed();
    breaker.admit()?.failed();
    assert.equal(breaker.state, 'closed');
    breaker.admit()?.failed();
    assert.equal(breaker.state, 'open');
    assert.equal(breaker.admit(), undefined);
    time.advance(400);
    assert.equal(breaker.retryInMs, 600);
  });

  test('half-open admits exactly one probe; its success closes, its failure reopens, its release lets another probe through', () => {
    const time = clock();
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 1_000 }, time.now);
    breaker.admit()?.failed();
    time.advance(1_000);
    assert.equal(breaker.state, 'half_open');
    const probe = breaker.admit();
    assert.ok(probe !== undefined);
    assert.equal(breaker.admit(), undefined, 'a second call while the probe is in flight');
    assert.equal(breaker.retryInMs, 0);
    probe.released();
    const second = breaker.admit();
    assert.ok(second !== undefined, 'a released probe frees the slot');
    second.failed();
    assert.equal(breaker.state, 'open');
    time.advance(1_000);
    const third = breaker.admit();
    third?.succeeded();
    third?.failed(); // settles once: ignored
    assert.equal(breaker.state, 'closed');
  });

  test('released attempts do not count', () => {
    const breaker = new CircuitBreaker({ threshold: 1 });
    breaker.admit()?.released();
    assert.equal(breaker.state, 'closed');
  });
});

describe('proxy settings', () => {
  const http = new URL('http://pdf.internal.example:8080/');
  const https = new URL('https://pdf.example.com/');

  test('the variable of the scheme, lower case first; NO_PROXY wins', () => {
    assert.equal(proxyFor(http, { HTTP_PROXY: 'http://proxy:3128' })?.href, 'http://proxy:3128/');
    assert.equal(proxyFor(http, { HTTPS_PROXY: 'http://proxy:3128' }), undefined);
    assert.equal(proxyFor(https, { https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:1' })?.host, 'a:1');
    assert.equal(proxyFor(https, { HTTPS_PROXY: 'proxy.corp:3128' })?.href, 'http://proxy.corp:3128/');
    assert.equal(proxyFor(https, { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '.example.com' }), undefined);
    assert.equal(proxyFor(https, { HTTPS_PROXY: '' }), undefined);
    assert.throws(() => proxyFor(https, { HTTPS_PROXY: 'socks5://proxy:1080' }), /http:\/\/ or https:\/\//);
  });

  test('NO_PROXY entries: *, domains with their subdomains, exact IPs, ports', () => {
    assert.equal(bypasses(http, '*'), true);
    assert.equal(bypasses(http, 'example'), true, 'a domain covers its subdomains');
    assert.equal(bypasses(http, 'internal.example'), true);
    assert.equal(bypasses(http, '*.internal.example'), true);
    assert.equal(bypasses(http, 'ample'), false, 'only whole labels');
    assert.equal(bypasses(http, 'pdf.internal.example:8080'), true);
    assert.equal(bypasses(http, 'pdf.internal.example:80'), false);
    assert.equal(bypasses(https, 'example.com:443'), true, 'the default port counts');
    assert.equal(bypasses(new URL('http://127.0.0.1:9/'), 'localhost, 127.0.0.1'), true);
    assert.equal(bypasses(new URL('http://127.0.0.1:9/'), '0.0.1'), false, 'IP addresses match only whole');
    assert.equal(bypasses(new URL('http://[::1]:9/'), '::1'), true);
    assert.equal(bypasses(new URL('http://[::1]:9/'), '[::1]:9'), true);
    assert.equal(bypasses(new URL('http://[::1]:9/'), '[::1]:10'), false);
    assert.equal(bypasses(http, ''), false);
  });
});

describe('codec', () => {
  test('bytes go out as base64 and come back as a Buffer', () => {
    const font = new Uint8Array([0, 1, 0, 0, 255, 254]);
    const wire = encodeSubsetFont({ font_data: font.subarray(1), codepoints: [72] });
    assert.equal(wire.font_data, Buffer.from([1, 0, 0, 255, 254]).toString('base64'));
    assert.deepEqual(wire.codepoints, [72]);
    const data = { font_data: Buffer.from('subset').toString('base64'), original_size_bytes: 6, subset_size_bytes: 6, reduction_percent: 0, included_glyphs: 1 };
    const answer = decodeEnvelope({ request_id: 'r', version: 'v', data, meta: { duration_ms: 1, worker_id: 'worker-1', cached: false } }, decodeSubsetFont);
    assert.ok(Buffer.isBuffer(answer.data.font_data));
    assert.equal(answer.data.font_data.toString(), 'subset');
    assert.equal(answer.request_id, 'r');
  });

  test('a response of the wrong shape is a ShapeError, not a silent wrong value', () => {
    const meta = { duration_ms: 1, worker_id: 'w', cached: false };
    assert.throws(() => decodeEnvelope({ request_id: 'r', version: 'v', data: { font_data: 'not base64!', original_size_bytes: 1, subset_size_bytes: 1, reduction_percent: 0, included_glyphs: 1 }, meta }, decodeSubsetFont), ShapeError);
    assert.throws(() => decodeEnvelope({ request_id: 'r', version: 'v', data: [], meta }, decodeSubsetFont), ShapeError);
    assert.throws(() => decodeEnvelope('{}', decodeSubsetFont), ShapeError);
    assert.throws(() => encodeSubsetFont({ font_data: 'AAAA' as unknown as Uint8Array, codepoints: [] }), TypeError);
  });
});

test("the package's entry point (package.json main/exports) is the client library", async () => {
  const entry = (await import('platen' as string)) as Record<string, unknown>;
  assert.equal(typeof entry.PlatenClient, 'function');
  assert.equal(typeof entry.PlatenProblemError, 'function');
});
