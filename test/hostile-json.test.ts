// Reliability plan, cases 20 and 43 (/work/shared/reference/reliability-plan.md):
// JSON parser bombs (nesting 100,000 deep, numbers past the double range,
// __proto__ members, keys of 100,000 characters) get a bounded problem document on every route family and leave
// the workers serving; and the 401s of every kind of bad key are one and the
// same answer, so that a caller cannot tell an unknown kid from a wrong
// secret by the response.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYS, bearer } from './helpers/keys.js';
import { postJson, readProblem, textDocument } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const DEPTH = 100_000;
const deepArrays = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepObjects = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);

describe('hostile JSON and uniform 401s', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ PLATEN_WORKERS: '1' });
  });
  after(() => s.close());

  const bombs: Record<string, string> = {
    'arrays 100,000 deep as the body': deepArrays,
    'arrays 100,000 deep inside a field': `{"operations":${deepArrays}}`,
    'objects 100,000 deep inside an operation': `{"operations":[{"type":"add_text","text":"x","style":${deepObjects}}]}`,
    'a number past the double range': '{"operations":[{"type":"add_text","text":"x","font_size":1e999999}]}',
    // An unknown key is named in detail and errors[], shortened: it came back whole, twice.
    'an unknown key of 100,000 characters': `{"${'k'.repeat(100_000)}":1,"operations":[{"type":"add_text","text":"x","${'q'.repeat(100_000)}":1}]}`,
    'a __proto__ member': '{"__proto__":{"polluted":true},"operations":[{"type":"add_text","text":"x","__proto__":{"x":1}}]}',
  };

  for (const path of ['/api/v1/render', '/api/v1/merge', '/v1/parse']) {
    test(`${path}: every bomb is a 4xx problem document, and the worker serves on`, async () => {
      for (const [name, body] of Object.entries(bombs)) {
        const response = await postJson(s.base, path, body, bearer(KEYS.enterprise));
        assert.ok(response.status === 400 || response.status === 422, `${name}: ${response.status}`);
        assert.equal(response.headers.get('content-type'), 'application/problem+json', name);
        const problem = await readProblem(response);
        assert.ok(problem.slug === 'bad-request' || problem.slug === 'validation-failed', `${name}: ${problem.slug}`);
        assert.ok(problem.detail.length < 1000, `${name}: the detail is a sentence, not an echo of the input`);
        assert.ok(JSON.stringify(problem.errors ?? []).length < 2000, `${name}: errors[] names fields, it does not echo the input`);
      }
      const health = (await (await fetch(`${s.base}/health`)).json()) as { workers: { total: number }; circuit_breaker: string };
      assert.equal(health.workers.total, 1);
      assert.equal(health.circuit_breaker, 'closed', 'no worker crashed');
      const rendered = await postJson(s.base, '/api/v1/render', textDocument('still here'), bearer(KEYS.enterprise));
      assert.equal(rendered.status, 200);
    });
  }

  test('every kind of bad key gets the same 401, byte for byte but for the request id', async () => {
    const answers = new Map<string, string>();
    for (const [name, authorization] of [
      ['an unknown kid', 'Bearer svc_live_nobody_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
      ['a known kid with a wrong secret', 'Bearer svc_live_core1_wrongwrongwrongwrongwrong'],
      ['a known kid with a secret of another length', 'Bearer svc_live_core1_w'],
      ['a malformed key', 'Bearer svc_live_x'],
      ['Bearer and nothing', 'Bearer '],
      ['another scheme', `Basic ${KEYS.core}`],
    ] as const) {
      const response = await fetch(`${s.base}/api/v1/capabilities`, { headers: { authorization } });
      assert.equal(response.status, 401, name);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer', name);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body.request_id, response.headers.get('x-request-id'));
      delete body.request_id;
      answers.set(name, JSON.stringify(body));
    }
    assert.equal(new Set(answers.values()).size, 1, [...answers].map(([name, body]) => `${name}: ${body}`).join('\n'));
    // A key in the query string is not a credential (keys in URLs end up in logs).
    const inQuery = await fetch(`${s.base}/api/v1/capabilities?api_key=${KEYS.core}`);
    assert.equal(inQuery.status, 401);
    assert.ok(!(await inQuery.text()).includes(KEYS.core.slice(9)), 'the key is not echoed');
  });
});
