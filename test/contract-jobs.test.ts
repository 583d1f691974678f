// The job and session routes driven through every documented state, each
// answer checked against its documented response in the render contract
// (the other routes: contract.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gate } from './helpers/gate.js';
import { KEYS, bearer } from './helpers/keys.js';
import {
  assertMatchesContract,
  isNode,
  loadContract,
  operation,
  pdfBytes,
  requestSchema,
  resolve,
  schemaValidator,
  type Contract,
  type HttpMethod,
  type Node,
} from './helpers/openapi.js';
import { FAULT_WORKER, startTestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/** What a job or session route answered, its body already checked against the contract. */
interface Checked {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

interface CallOptions {
  readonly key?: string;
  /** JSON (an object, or a string sent as it is); none when undefined. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** HEAD instead of GET: the GET operation's headers, and no body. */
  readonly head?: boolean;
}

/** A request to `url`, answered as the contract's `method template` says. */
function caller(base: string, contract: Contract) {
  return async (method: HttpMethod, template: string, url: string, options: CallOptions = {}): Promise<Checked> => {
    const response = await fetch(`${base}${url}`, {
      method: options.head === true ? 'HEAD' : method.toUpperCase(),
      headers: {
        ...bearer(options.key ?? KEYS.enterprise),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    });
    const body = await assertMatchesContract(contract, method, template, response, { head: options.head === true });
    return { status: response.status, headers: response.headers, body };
  };
}

type JobData = { job_id: string; status: string; progress: number | null; error: string | null; poll_url: string; result_url: string | null; started_at: string | null };
type SessionData = { session_id: string; status: string; operation_count: number; document_id: string };

const dataOf = <T>(checked: Checked): T => (checked.body as { data: T }).data;
const slugOf = (checked: Checked): string => String((checked.body as Node).type).replace(/^.*\//, '');
const firstError = (checked: Checked): [unknown, unknown] => {
  const first = (checked.body as { errors: Node[] }).errors[0];
  return [first?.field, first?.code];
};
const RETRY_AFTER = /^[1-9]\d*$/;
const TERMINAL_JOB = new Set(['completed', 'failed', 'cancelled']);

const JOB = '/api/v1/jobs/{id}';
const JOB_RESULT = '/api/v1/jobs/{id}/result';
const SESSION = '/api/v1/sessions/{sessionId}';

/** The documented request examples of an operation, by name. */
function requestExamples(contract: Contract, method: HttpMethod, path: string): Array<[string, unknown]> {
  const body = resolve(contract, operation(contract, method, path).requestBody);
  const media = ((body.content as Node)['application/json'] ?? {}) as Node;
  return Object.entries((media.examples ?? {}) as Node).map(([name, example]) => [name, (example as Node).value]);
}

test('jobs and sessions answer as the contract says', async (t) => {
  const maxOperations = 12;
  // The pro key may hold one active session (its `sessions` attribute), so its 429 needs no loop.
  const server = await startTestServer({
    PLATEN_SESSIONS_ENABLED: 'true',
    PLATEN_SESSION_MAX_OPERATIONS: String(maxOperations),
    PLATEN_API_KEYS: [`${KEYS.core}:core-client:core:`, `${KEYS.pro}:pro-client:pro:sessions=1`, `${KEYS.enterprise}:ent-client:enterprise:`].join(','),
  });
  t.after(() => server.close());
  const render = await loadContract('render');
  const call = caller(server.base, render);

  /** Polls until the job is finished, checking every answer; Retry-After exactly while it is not. */
  const finished = (id: string): Promise<JobData> =>
    waitFor(
      async () => {
        const polled = await call('get', JOB, `/api/v1/jobs/${id}`);
        assert.equal(polled.status, 200);
        const job = dataOf<JobData>(polled);
        if (TERMINAL_JOB.has(job.status)) {
          assert.equal(polled.headers.get('retry-after'), null, `no Retry-After once ${job.status}`);
          return job;
        }
        assert.match(polled.headers.get('retry-after') ?? '', RETRY_AFTER, `Retry-After while ${job.status}`);
        return undefined;
      },
      { timeoutMs: 15_000, intervalMs: 20, what: `job ${id} finishing` },
    );

  await t.test('GET /api/v1/capabilities lists jobs, and sessions once enabled', async () => {
    const body = (await call('get', '/api/v1/capabilities', '/api/v1/capabilities')).body as { data: Node };
    assert.deepEqual(body.data.operations, ['render', 'extract-text', 'compare', 'merge', 'split', 'sign', 'fill-form', 'optimize', 'redact', 'check-accessibility', 'compliance-check', 'forensic-analyze', 'ai-certify', 'jobs', 'sessions']);
  });

  await t.test('POST /api/v1/jobs: 201 with Location; polled until completed; the PDF; DELETE 204; then 404', async () => {
    const examples = requestExamples(render, 'post', '/api/v1/jobs');
    assert.ok(examples.length > 0, 'POST /api/v1/jobs has no request example');
    for (const [name, example] of examples) {
      const submitted = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body: example });
      assert.equal(submitted.status, 201, name);
      const job = dataOf<JobData>(submitted);
      assert.equal(submitted.headers.get('location'), job.poll_url);
      assert.equal(submitted.headers.get('idempotent-replayed'), null);

      const done = await finished(job.job_id);
      assert.equal(done.status, 'completed', `${name}: ${done.error}`);
      await call('get', JOB, done.poll_url, { head: true });

      const result = await call('get', JOB_RESULT, done.result_url as string);
      assert.equal(result.status, 200);
      pdfBytes(result.body);
      assert.equal(result.headers.get('content-disposition'), `attachment; filename="${job.job_id}.pdf"`);
      assert.equal((await call('get', JOB_RESULT, done.result_url as string, { head: true })).status, 200);

      const removed = await call('delete', JOB, done.poll_url);
      assert.equal(removed.status, 204);
      for (const [method, url] of [['get', done.poll_url], ['delete', done.poll_url]] as const) {
        const gone = await call(method, JOB, url);
        assert.equal(gone.status, 404);
        assert.equal(slugOf(gone), 'not-found');
      }
      assert.equal((await call('get', JOB_RESULT, done.result_url as string)).status, 404);
    }
  });

  await t.test('Idempotency-Key: the same body replays (201, Idempotent-Replayed), another is 409, a malformed key 400', async () => {
    const body = { operations: [{ type: 'add_text', text: 'idempotent' }] };
    const headers = { 'idempotency-key': 'contract-order-1' };
    const first = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body, headers });
    assert.equal(first.status, 201);
    const replayed = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body, headers });
    assert.equal(replayed.status, 201);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.equal(dataOf<JobData>(replayed).job_id, dataOf<JobData>(first).job_id);
    assert.equal(replayed.headers.get('location'), dataOf<JobData>(first).poll_url);

    const conflict = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body: { operations: [{ type: 'add_text', text: 'another body' }] }, headers });
    assert.equal(conflict.status, 409);
    assert.equal(slugOf(conflict), 'idempotency-conflict');

    const key = schemaValidator(render, resolve(render, { $ref: '#/components/parameters/IdempotencyKey' }).schema as Node);
    for (const bad of ['has space', 'x'.repeat(256)]) {
      assert.equal(key(bad), false, `the contract accepts the key ${JSON.stringify(bad)}`);
      const refused = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body, headers: { 'idempotency-key': bad } });
      assert.equal(refused.status, 400);
      assert.equal(slugOf(refused), 'bad-request');
    }
    await finished(dataOf<JobData>(first).job_id);
  });

  await t.test('a job that fails while laying out: failed with its error; the result is 409 without Retry-After', async () => {
    // Valid to the schema, but no font has these characters.
    const submitted = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body: { operations: [{ type: 'add_text', text: '\u{13000}\u{13001}' }] } });
    assert.equal(submitted.status, 201);
    const failed = await finished(dataOf<JobData>(submitted).job_id);
    assert.equal(failed.status, 'failed');
    assert.equal(typeof failed.error, 'string');
    const early = await call('get', JOB_RESULT, `${failed.poll_url}/result`);
    assert.equal(early.status, 409);
    assert.equal(slugOf(early), 'idempotency-conflict');
    assert.equal(early.headers.get('retry-after'), null, 'a failed job will never complete');
  });

  await t.test('an invalid submission is 422 and makes no job', async () => {
    const refused = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body: { operations: [] } });
    assert.equal(refused.status, 422);
    assert.deepEqual(firstError(refused), ['operations', 'TOO_SHORT']);
  });

  await t.test('a job of another client, or of none, is the same 404', async () => {
    const submitted = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body: { operations: [{ type: 'add_page' }] } });
    const job = dataOf<JobData>(submitted);
    const missing = await call('get', JOB, '/api/v1/jobs/job_000000000000000000000000', { key: KEYS.core });
    for (const [method, template, url] of [
      ['get', JOB, job.poll_url],
      ['delete', JOB, job.poll_url],
      ['get', JOB_RESULT, `${job.poll_url}/result`],
      ['get', JOB, '/api/v1/jobs/not-a-job-id'],
    ] as const) {
      const answer = await call(method, template, url, { key: KEYS.core });
      assert.equal(answer.status, 404, `${method} ${url}`);
      assert.equal((answer.body as Node).detail, (missing.body as Node).detail, 'indistinguishable from a job that does not exist');
    }
    await finished(job.job_id);
  });

  const addRoutes = Object.entries(render.document.paths as Node)
    .filter(([path]) => path.startsWith(`${SESSION}/`) && !path.endsWith('/render'))
    .flatMap(([path, item]) => (['post', 'put'] as const).filter((method) => isNode((item as Node)[method])).map((method) => [method, path] as const));

  await t.test('the session add routes are the six operations, font by PUT and POST', () => {
    assert.deepEqual(addRoutes.map(([method, path]) => `${method.toUpperCase()} ${path.slice(SESSION.length + 1)}`).sort(), [
      'POST font',
      'POST html',
      'POST images',
      'POST pages',
      'POST tables',
      'POST text',
      'PUT font',
    ]);
  });

  await t.test('a session: create, every add route with every documented payload, render, then 409; DELETE; then 404', async () => {
    const [, createExample] = requestExamples(render, 'post', '/api/v1/sessions').find(([name]) => name === 'quote') ?? [];
    const created = await call('post', '/api/v1/sessions', '/api/v1/sessions', { body: createExample });
    assert.equal(created.status, 201);
    const session = dataOf<SessionData>(created);
    const path = `/api/v1/sessions/${session.session_id}`;
    assert.equal(created.headers.get('location'), path);
    assert.equal(session.document_id, 'quote-77');
    assert.equal(dataOf<SessionData>(await call('get', SESSION, path)).status, 'active');
    await call('get', SESSION, path, { head: true });

    let count = 0;
    for (const [method, template] of addRoutes) {
      const url = `${path}${template.slice(SESSION.length)}`;
      const examples = requestExamples(render, method, template);
      assert.ok(examples.length > 0, `${method.toUpperCase()} ${template} has no request example`);
      for (const [name, example] of examples) {
        const added = await call(method, template, url, { body: example });
        assert.equal(added.status, 200, `${method.toUpperCase()} ${template} ${name}`);
        assert.equal(dataOf<SessionData>(added).operation_count, ++count);
      }
    }
    // A page needs no body at all, and then no Content-Type.
    const page = await call('post', `${SESSION}/pages`, `${path}/pages`);
    assert.equal(page.status, 200);
    assert.equal(dataOf<SessionData>(page).operation_count, ++count);
    assert.ok(count <= maxOperations);

    const rendered = await call('post', `${SESSION}/render`, `${path}/render`);
    assert.equal(rendered.status, 200);
    pdfBytes(rendered.body);
    assert.equal(rendered.headers.get('content-disposition'), 'inline; filename="quote-77.pdf"');
    const after = dataOf<SessionData>(await call('get', SESSION, path));
    assert.deepEqual([after.status, after.operation_count], ['rendered', count]);

    for (const [method, template, body] of [
      ['post', `${SESSION}/text`, { text: 'too late' }],
      ['put', `${SESSION}/font`, { size: 9 }],
      ['post', `${SESSION}/render`, undefined],
    ] as const) {
      const refused = await call(method, template, `${path}${template.slice(SESSION.length)}`, { body });
      assert.equal(refused.status, 409, template);
      assert.equal(slugOf(refused), 'session-not-active');
    }

    const deleted = await call('delete', SESSION, path);
    assert.equal(deleted.status, 200);
    assert.deepEqual(dataOf<Node>(deleted), { session_id: session.session_id, deleted: true });
    for (const [method, template] of [['get', SESSION], ['delete', SESSION], ['post', `${SESSION}/text`]] as const) {
      const gone = await call(method, template, `${path}${template.slice(SESSION.length)}`, { body: method === 'post' ? { text: 'x' } : undefined });
      assert.equal(gone.status, 404, `${method} ${template}`);
      assert.equal(slugOf(gone), 'not-found');
    }
  });

  await t.test('session 422s: paths in the payload, no `type`, TOO_LARGE at the maximum, layout problems at render', async () => {
    const session = dataOf<SessionData>(await call('post', '/api/v1/sessions', '/api/v1/sessions'));
    assert.equal(session.operation_count, 0);
    const path = `/api/v1/sessions/${session.session_id}`;
    // [route, payload, first error]: the contract refuses each payload too.
    const cases: Array<[string, unknown, [string, string]]> = [
      ['text', { text: 'x', size: 0 }, ['size', 'OUT_OF_RANGE']],
      ['text', { type: 'add_text', text: 'x' }, ['type', 'UNKNOWN_FIELD']],
      ['tables', { rows: [['a', 5]] }, ['rows[0][1]', 'INVALID_TYPE']],
      ['images', { data: 'https://example.com/logo.png' }, ['data', 'INVALID_VALUE']],
      ['pages', { page_size: 'A99' }, ['page_size', 'INVALID_ENUM']],
    ];
    for (const [segment, payload, error] of cases) {
      const template = `${SESSION}/${segment}`;
      assert.equal(schemaValidator(render, requestSchema(render, 'post', template))(payload), false, `the contract accepts ${segment} ${JSON.stringify(payload)}`);
      const refused = await call('post', template, `${path}/${segment}`, { body: payload });
      assert.equal(refused.status, 422, `${segment} ${JSON.stringify(payload)}`);
      assert.deepEqual(firstError(refused), error);
    }
    assert.equal(dataOf<SessionData>(await call('get', SESSION, path)).operation_count, 0, 'invalid operations are not counted');

    // An unknown family passes the schema; the render finds it, names it in the replayed request, and leaves the session active.
    assert.equal((await call('post', `${SESSION}/font`, `${path}/font`, { body: { family: 'Arial' } })).status, 200);
    const unrenderable = await call('post', `${SESSION}/render`, `${path}/render`);
    assert.equal(unrenderable.status, 422);
    assert.deepEqual(firstError(unrenderable), ['operations[0].family', 'UNKNOWN_FONT']);
    assert.equal(dataOf<SessionData>(await call('get', SESSION, path)).status, 'active');

    for (let count = 1; count < maxOperations; count++) await call('post', `${SESSION}/pages`, `${path}/pages`);
    const full = await call('post', `${SESSION}/pages`, `${path}/pages`);
    assert.equal(full.status, 422);
    assert.deepEqual(firstError(full), ['(session)', 'TOO_LARGE']);
    assert.equal(dataOf<SessionData>(await call('get', SESSION, path)).operation_count, maxOperations);
    assert.equal((await call('delete', SESSION, path)).status, 200);
  });

  await t.test('POST /api/v1/sessions: 422 on its fields, 413 over 16 KiB, 415 without JSON', async () => {
    const validate = schemaValidator(render, 'SessionCreateRequest');
    for (const [body, error] of [
      [{ page_size: 'A99' }, ['page_size', 'INVALID_ENUM']],
      [{ orientation: 'sideways' }, ['orientation', 'INVALID_ENUM']],
      [{ document_id: 'has space' }, ['document_id', 'INVALID_FORMAT']],
      [{ colour: 'red' }, ['colour', 'UNKNOWN_FIELD']],
      ['[1]', ['(body)', 'INVALID_TYPE']],
    ] as const) {
      assert.equal(validate(typeof body === 'string' ? JSON.parse(body) : body), false, `the contract accepts ${JSON.stringify(body)}`);
      const refused = await call('post', '/api/v1/sessions', '/api/v1/sessions', { body });
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.deepEqual(firstError(refused), error);
    }
    const large = await call('post', '/api/v1/sessions', '/api/v1/sessions', { body: { document_id: 'x'.repeat(17_000) } });
    assert.equal(large.status, 413);
    assert.equal(slugOf(large), 'payload-too-large');
    const text = await call('post', '/api/v1/sessions', '/api/v1/sessions', { body: '{}', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.status, 415);
  });

  await t.test('sessions belong to their client (404 to any other key); past its maximum a client gets 429', async () => {
    const session = dataOf<SessionData>(await call('post', '/api/v1/sessions', '/api/v1/sessions'));
    const path = `/api/v1/sessions/${session.session_id}`;
    const missing = await call('get', SESSION, '/api/v1/sessions/sess_000000000000000000000000', { key: KEYS.pro });
    for (const [method, template, body] of [
      ['get', SESSION, undefined],
      ['delete', SESSION, undefined],
      ['post', `${SESSION}/text`, { text: 'not yours' }],
      ['post', `${SESSION}/render`, undefined],
    ] as const) {
      const answer = await call(method, template, `${path}${template.slice(SESSION.length)}`, { key: KEYS.pro, body });
      assert.equal(answer.status, 404, `${method} ${template}`);
      assert.equal((answer.body as Node).detail, (missing.body as Node).detail, 'indistinguishable from a session that does not exist');
    }
    assert.equal((await call('get', SESSION, '/api/v1/sessions/not-a-session-id')).status, 404);
    assert.equal(dataOf<SessionData>(await call('get', SESSION, path)).status, 'active', 'still there for its owner');

    const own = await call('post', '/api/v1/sessions', '/api/v1/sessions', { key: KEYS.pro });
    assert.equal(own.status, 201);
    const over = await call('post', '/api/v1/sessions', '/api/v1/sessions', { key: KEYS.pro });
    assert.equal(over.status, 429);
    assert.equal(slugOf(over), 'client-rate-exceeded');
    assert.match(over.headers.get('retry-after') ?? '', RETRY_AFTER);
    // A deleted session no longer counts.
    await call('delete', SESSION, `/api/v1/sessions/${dataOf<SessionData>(own).session_id}`, { key: KEYS.pro });
    assert.equal((await call('post', '/api/v1/sessions', '/api/v1/sessions', { key: KEYS.pro })).status, 201);
    await call('delete', SESSION, path);
  });
});

test('held jobs answer as the contract says: Retry-After while pending or running, 409 idempotency-conflict, DELETE cancels', async (t) => {
  // One job at a time: the first is held at the gate (running), so the
  // second stays pending. No sleeps.
  const held = gate();
  const server = await startTestServer({ PLATEN_JOB_CONCURRENCY: '1' }, { workerFile: FAULT_WORKER, workerData: held.workerData });
  t.after(async () => {
    held.open();
    await server.close();
  });
  const render = await loadContract('render');
  const call = caller(server.base, render);

  const running = dataOf<JobData>(await call('post', '/api/v1/jobs', '/api/v1/jobs', { body: { operations: [{ type: 'add_text', text: 'held' }], fault: 'block' } }));
  await held.blocked(1);
  const queued = await call('post', '/api/v1/jobs', '/api/v1/jobs', { body: { operations: [{ type: 'add_text', text: 'queued' }] } });
  assert.equal(queued.status, 201);
  assert.match(queued.headers.get('retry-after') ?? '', RETRY_AFTER);
  const pending = dataOf<JobData>(queued);

  for (const [job, status] of [[running, 'running'], [pending, 'pending']] as const) {
    const polled = await call('get', JOB, job.poll_url);
    assert.equal(polled.status, 200);
    assert.equal(dataOf<JobData>(polled).status, status);
    assert.match(polled.headers.get('retry-after') ?? '', RETRY_AFTER, `Retry-After while ${status}`);

    const early = await call('get', JOB_RESULT, `${job.poll_url}/result`);
    assert.equal(early.status, 409);
    assert.equal(slugOf(early), 'idempotency-conflict');
    assert.match(early.headers.get('retry-after') ?? '', RETRY_AFTER, `Retry-After on the 409 while ${status}`);
  }

  for (const job of [pending, running]) {
    const cancelled = await call('delete', JOB, job.poll_url);
    assert.equal(cancelled.status, 200);
    const data = dataOf<JobData>(cancelled);
    assert.deepEqual([data.status, data.progress, data.result_url], ['cancelled', null, null]);
    const never = await call('get', JOB_RESULT, `${job.poll_url}/result`);
    assert.equal(never.status, 409);
    assert.equal(never.headers.get('retry-after'), null, 'a cancelled job will never complete');
    assert.equal((await call('delete', JOB, job.poll_url)).status, 204);
  }
});
