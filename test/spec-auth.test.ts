// Authentication as the two specs state it, checked from outside on every
// route the specs list: render spec section 5 ("Missing or invalid key: 401
// with the response header WWW-Authenticate: Bearer"; every route except the
// two probes needs the key) and the accelerator's routes, which take the same
// key. A client sweeping the routes, as a conformance suite does, must see
// 401 on every one of them, not a rate limit part of the way through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readProblem } from './helpers/http.js';
import { bearer } from './helpers/keys.js';
import { startTestServer } from './helpers/server.js';

const SESSION = 'sess_0123456789abcdef01234567';

/** Every keyed route of the two specs (render section 4, accelerator section 4), with its method. */
const KEYED_ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/api/v1/capabilities'],
  ['POST', '/api/v1/render'],
  ['POST', '/api/v1/jobs'],
  ['GET', '/api/v1/jobs/job_1'],
  ['DELETE', '/api/v1/jobs/job_1'],
  ['GET', '/api/v1/jobs/job_1/result'],
  ['POST', '/api/v1/sessions'],
  ['GET', `/api/v1/sessions/${SESSION}`],
  ['DELETE', `/api/v1/sessions/${SESSION}`],
  ['POST', `/api/v1/sessions/${SESSION}/pages`],
  ['POST', `/api/v1/sessions/${SESSION}/text`],
  ['POST', `/api/v1/sessions/${SESSION}/images`],
  ['POST', `/api/v1/sessions/${SESSION}/tables`],
  ['POST', `/api/v1/sessions/${SESSION}/html`],
  ['PUT', `/api/v1/sessions/${SESSION}/font`],
  ['POST', `/api/v1/sessions/${SESSION}/render`],
  ...[
    'extract-text',
    'merge',
    'split',
    'sign',
    'fill-form',
    'redact',
    'compare',
    'check-accessibility',
    'optimize',
    'compliance-check',
    'forensic-analyze',
    'ai-certify',
  ].map((operation) => ['POST', `/api/v1/${operation}`] as const),
  ...['font/subset', 'image/compress', 'linearize', 'parse', 'compare', 'extract-text', 'rag/chunk', 'rag/embed', 'rag/index', 'rag/search'].map(
    (operation) => ['POST', `/v1/${operation}`] as const,
  ),
  ['GET', '/v1/cluster/status'],
];

async function sweep(base: string, headers: Record<string, string>): Promise<string[]> {
  const wrong: string[] = [];
  for (const [method, path] of KEYED_ROUTES) {
    const body = method === 'POST' || method === 'PUT' ? '{}' : undefined;
    const response = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body });
    const problem = await readProblem(response);
    const challenge = response.headers.get('www-authenticate');
    if (response.status !== 401 || problem.slug !== 'unauthorized' || challenge !== 'Bearer') wrong.push(`${method} ${path}: ${response.status} ${problem.slug} ${challenge}`);
  }
  return wrong;
}

test('every keyed route of both specs answers 401 with WWW-Authenticate: Bearer, without a key and with a wrong one, through a whole sweep', async (t) => {
  const s = await startTestServer({ PLATEN_SESSIONS_ENABLED: 'true' });
  t.after(() => s.close());
  assert.ok(KEYED_ROUTES.length > 30, 'more routes than the old failed-authentication allowance of 30 a minute');
  // Twice without a key: a request that presents no key guessed nothing, so it never turns into a 429.
  assert.deepEqual(await sweep(s.base, {}), []);
  assert.deepEqual(await sweep(s.base, {}), []);
  assert.deepEqual(await sweep(s.base, bearer('svc_live_nobody1_wrongwrongwrongwrongwrong')), []);
  assert.deepEqual(await sweep(s.base, { authorization: 'Basic dXNlcjpwYXNz' }), []);
});

test('a wrong key presented past PLATEN_AUTH_FAILURES_PER_MIN is 429, while requests without a key stay 401', async (t) => {
  const s = await startTestServer({ PLATEN_AUTH_FAILURES_PER_MIN: '2' });
  t.after(() => s.close());
  const guess = () => fetch(`${s.base}/api/v1/capabilities`, { headers: bearer('svc_live_nobody1_wrongwrongwrongwrongwrong') });
  const bare = () => fetch(`${s.base}/api/v1/capabilities`);
  assert.equal((await guess()).status, 401);
  assert.equal((await guess()).status, 401);
  const limited = await guess();
  assert.equal(limited.status, 429);
  assert.equal((await readProblem(limited)).slug, 'client-rate-exceeded');
  const missing = await bare();
  assert.equal(missing.status, 401, 'no key presented: the spec answer, whatever the guesses before');
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
});
