// JSON bodies are UTF-8 (RFC 8259 section 8.1), read the same way on every
// route: a leading byte-order mark is ignored (the RFC lets a parser do so,
// and every worker-read route did; session creation, read on the main
// thread, answered 400), and bytes that are not UTF-8 are 400 bad-request
// rather than read as U+FFFD into a stored value (a session's document_id).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYS, bearer } from './helpers/keys.js';
import { readProblem } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('JSON body encoding', () => {
  let s: TestServer;
  before(async () => (s = await startTestServer({ PLATEN_SESSIONS_ENABLED: 'true' })));
  after(() => s.close());

  const post = (path: string, body: Buffer) =>
    fetch(`${s.base}${path}`, { method: 'POST', headers: { ...bearer(KEYS.enterprise), 'content-type': 'application/json' }, body });

  const routes: ReadonlyArray<{ path: string; body: string; status: number }> = [
    { path: '/api/v1/render', body: '{"operations":[{"type":"add_text","text":"x"}]}', status: 200 },
    { path: '/api/v1/sessions', body: '{"document_id":"quote-1"}', status: 201 },
    { path: '/v1/rag/embed', body: '{"inputs":[{"id":"a","text":"x"}]}', status: 200 },
  ];

  for (const route of routes) {
    test(`${route.path}: a leading byte-order mark is ignored`, async () => {
      const response = await post(route.path, Buffer.concat([BOM, Buffer.from(route.body)]));
      assert.equal(response.status, route.status, await response.clone().text());
    });

    test(`${route.path}: bytes that are not UTF-8 are 400 bad-request`, async () => {
      const body = Buffer.from(route.body.replace('"x"', '"\u0001"').replace('quote-1', 'quote-\u0001'));
      body[body.indexOf(0x01)] = 0xff;
      const response = await post(route.path, body);
      assert.equal(response.status, 400);
      const problem = await readProblem(response);
      assert.equal(problem.slug, 'bad-request');
      assert.match(problem.detail, /not valid UTF-8/);
    });
  }
});
