// The answers a real server gives (probes, capabilities, render, problems,
// limits, worker faults) against their documented responses in the OpenAPI
// contracts in api/; the documents themselves are checked in
// contract-documents.test.ts, the job and session routes in
// contract-jobs.test.ts.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { test } from 'node:test';
import { MAX_ELEMENTS } from '../workers/render/html/parse.js';
import { KEYS, bearer } from './helpers/keys.js';
import {
  assertMatchesContract,
  assertMatchesResponse,
  assertValid,
  componentSchemas,
  loadContract,
  pdfBytes,
  requestSchema,
  resolve,
  schemaValidator,
  type Node,
} from './helpers/openapi.js';
import { FAULT_WORKER, startTestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

/** A 1 x 1 RGB PNG, the smallest image the render engine accepts. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

const packageVersion = (JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function postJson(key: string | undefined, body: unknown, contentType = 'application/json'): RequestInit {
  return {
    method: 'POST',
    headers: { ...(key === undefined ? {} : bearer(key)), 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

test('a running server answers as the contracts say', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const { base } = server;
  const render = await loadContract('render');
  const accel = await loadContract('accel');

  await t.test('GET and HEAD /healthz', async () => {
    const body = (await assertMatchesContract(render, 'get', '/healthz', await fetch(`${base}/healthz`))) as Node;
    assert.equal(body.status, 'ok');
    const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    await assertMatchesContract(render, 'get', '/healthz', head, { head: true });
  });

  await t.test('GET /readyz', async () => {
    const response = await fetch(`${base}/readyz`);
    assert.equal(response.status, 200);
    const body = (await assertMatchesContract(render, 'get', '/readyz', response)) as Node;
    assert.deepEqual(body, { status: 'ready', checks: { pool: true, keys: true, accepting: true } });
  });

  await t.test('GET and HEAD /health (accelerator)', async () => {
    const response = await fetch(`${base}/health`);
    assert.equal(response.status, 200);
    const body = (await assertMatchesContract(accel, 'get', '/health', response)) as Node;
    assert.equal(body.version, packageVersion);
    assert.deepEqual(body.workers, { total: 2, busy: 0, idle: 2 });
    assert.equal(body.circuit_breaker, 'closed');
    await assertMatchesContract(accel, 'get', '/health', await fetch(`${base}/health`, { method: 'HEAD' }), { head: true });
  });

  await t.test('GET /api/v1/capabilities, per key tier', async () => {
    for (const tier of ['core', 'enterprise'] as const) {
      const response = await fetch(`${base}/api/v1/capabilities`, { headers: { ...bearer(KEYS[tier]), 'x-request-id': `contract-${tier}.1` } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-request-id'), `contract-${tier}.1`);
      const body = (await assertMatchesContract(render, 'get', '/api/v1/capabilities', response)) as { data: Node; meta: Node };
      assert.equal(body.data.tier, tier);
      assert.deepEqual(body.data.operations, tier === 'core' ? ['render', 'extract-text', 'merge', 'split', 'jobs'] : ['render', 'extract-text', 'compare', 'merge', 'split', 'sign', 'fill-form', 'optimize', 'redact', 'check-accessibility', 'compliance-check', 'forensic-analyze', 'ai-certify', 'jobs']);
      assert.equal(body.meta.api_version, packageVersion);
      assert.equal(body.meta.request_id, `contract-${tier}.1`);
    }
  });

  await t.test('POST /api/v1/render: 200 application/pdf', async () => {
    const response = await fetch(`${base}/api/v1/render`, postJson(KEYS.core, { operations: [{ type: 'add_text', text: 'Hello, contract' }] }));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    pdfBytes(await assertMatchesContract(render, 'post', '/api/v1/render', response));
  });

  await t.test('every documented request example renders', async () => {
    const media = ((resolve(render, (render.document.paths as Node)['/api/v1/render'] as Node).post as Node).requestBody as Node).content as Node;
    const examples = Object.entries(((media['application/json'] as Node).examples as Node) ?? {}).map(([name, e]) => [name, (e as Node).value] as const);
    const schemas = componentSchemas(render);
    const mapping = ((schemas.Operation as Node).discriminator as Node).mapping as Record<string, string>;
    for (const [type, ref] of Object.entries(mapping)) {
      for (const example of (resolve(render, { $ref: ref }).examples as unknown[]) ?? []) examples.push([`${type} example`, { operations: [example] }]);
    }
    for (const example of (schemas.RenderRequest?.examples as unknown[]) ?? []) examples.push(['RenderRequest example', example]);
    assert.ok(examples.length >= 5, 'too few examples');
    for (const [name, example] of examples) {
      assertValid(render, requestSchema(render, 'post', '/api/v1/render'), example, name);
      const response = await fetch(`${base}/api/v1/render`, postJson(KEYS.core, example));
      assert.equal(response.status, 200, `${name}: ${await response.clone().text()}`);
      pdfBytes(await assertMatchesContract(render, 'post', '/api/v1/render', response));
    }
  });

  await t.test('400 bad-request: malformed JSON', async () => {
    const response = await fetch(`${base}/api/v1/render`, postJson(KEYS.core, '{"operations": ['));
    assert.equal(response.status, 400);
    const body = (await assertMatchesContract(render, 'post', '/api/v1/render', response)) as Node;
    assert.equal(body.type, 'https://platen.dev/errors/bad-request');
    assert.equal(body.instance, '/api/v1/render');
  });

  await t.test('401 unauthorized: no key, and a key that does not exist', async () => {
    for (const headers of [{}, bearer('svc_live_nobody_xxxxxxxxxxxxxxxxxxxxxxxx')]) {
      const response = await fetch(`${base}/api/v1/capabilities`, { headers });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
      await assertMatchesContract(render, 'get', '/api/v1/capabilities', response);
    }
    const response = await fetch(`${base}/api/v1/render`, postJson(undefined, { operations: [{ type: 'add_page' }] }));
    assert.equal(response.status, 401);
    await assertMatchesContract(render, 'post', '/api/v1/render', response);
  });

  await t.test('404 not-found: unknown paths, on both APIs', async () => {
    const response = await fetch(`${base}/api/v1/sessions`, { headers: bearer(KEYS.enterprise) });
    const body = (await assertMatchesResponse(render, 'NotFound', 404, response)) as Node;
    assert.equal(body.instance, '/api/v1/sessions');
    await assertMatchesResponse(accel, 'NotFound', 404, await fetch(`${base}/v1/rag/rerank`, postJson(KEYS.enterprise, {})));
    await assertMatchesResponse(accel, 'NotFound', 404, await fetch(`${base}/metrics`));
  });

  await t.test('405 method-not-allowed with Allow', async () => {
    const response = await fetch(`${base}/api/v1/render`, { headers: bearer(KEYS.core) });
    assert.equal(response.headers.get('allow'), 'POST, OPTIONS');
    await assertMatchesResponse(render, 'MethodNotAllowed', 405, response);
    const probe = await fetch(`${base}/readyz`, { method: 'POST' });
    assert.equal(probe.headers.get('allow'), 'GET, HEAD, OPTIONS');
    await assertMatchesResponse(render, 'MethodNotAllowed', 405, probe);
    const health = await fetch(`${base}/health`, { method: 'DELETE' });
    assert.equal(health.headers.get('allow'), 'GET, HEAD, OPTIONS');
    await assertMatchesResponse(accel, 'MethodNotAllowed', 405, health);
  });

  await t.test('OPTIONS: 204 with Allow and no body', async () => {
    const response = await fetch(`${base}/api/v1/render`, { method: 'OPTIONS' });
    assert.equal(response.headers.get('allow'), 'POST, OPTIONS');
    await assertMatchesResponse(render, 'Options', 204, response);
    await assertMatchesResponse(accel, 'Options', 204, await fetch(`${base}/health`, { method: 'OPTIONS' }));
  });

  await t.test('415 unsupported-media-type', async () => {
    const response = await fetch(`${base}/api/v1/render`, postJson(KEYS.core, '{"operations":[{"type":"add_page"}]}', 'text/plain'));
    assert.equal(response.status, 415);
    await assertMatchesContract(render, 'post', '/api/v1/render', response);
  });

  await t.test('422 validation-failed: an unknown page size', async () => {
    const response = await fetch(`${base}/api/v1/render`, postJson(KEYS.core, { page_size: 'A99', operations: [{ type: 'add_page' }] }));
    assert.equal(response.status, 422);
    const body = (await assertMatchesContract(render, 'post', '/api/v1/render', response)) as { errors: Array<Node> };
    assert.equal(body.errors[0]?.field, 'page_size');
    assert.equal(body.errors[0]?.code, 'INVALID_ENUM');
  });

  await t.test('the contract and the server agree on what a valid RenderRequest is', async () => {
    const text = (extra: Node = {}) => ({ type: 'add_text', text: 'x', ...extra });
    const image = (extra: Node = {}) => ({ type: 'add_image', data: PNG_1X1, ...extra });
    const table = (extra: Node = {}) => ({ type: 'add_table', rows: [['a']], ...extra });
    const html = (extra: Node = {}) => ({ type: 'add_html', html: '<p>x</p>', ...extra });
    // [name, body, valid by the contract, server status, first error {field, code} on 422]
    type Case = [string, unknown, boolean, number, [string, string]?];
    const cases: Case[] = [
      ['minimal', { operations: [text()] }, true, 200],
      ['case-insensitive page size', { page_size: 'letter', operations: [text()] }, true, 200],
      ['page override, uncompressed', { output: { compress: false }, margin: 5, operations: [{ type: 'add_page', page_size: 'c10', orientation: 'landscape' }, text({ x: 1, y: 2 })] }, true, 200],
      ['every add_text field', { margin: 0, operations: [text({ x: 0, y: 0, width: 1, size: 500, color: '#abc', align: 'right' })] }, true, 200],
      ['unknown page size', { page_size: 'A99', operations: [text()] }, false, 422, ['page_size', 'INVALID_ENUM']],
      ['orientation is case-sensitive', { orientation: 'Portrait', operations: [text()] }, false, 422, ['orientation', 'INVALID_ENUM']],
      ['no operations', { operations: [] }, false, 422, ['operations', 'TOO_SHORT']],
      ['unknown top-level field', { colour: '#000', operations: [text()] }, false, 422, ['colour', 'UNKNOWN_FIELD']],
      ['unknown operation field', { operations: [text({ extra: 1 })] }, false, 422, ['operations[0].extra', 'UNKNOWN_FIELD']],
      ['margin over 1000', { margin: 1001, operations: [text()] }, false, 422, ['margin', 'OUT_OF_RANGE']],
      ['x without y', { operations: [text({ x: 5 })] }, false, 422, ['operations[0].y', 'INVALID_VALUE']],
      ['negative x', { operations: [text({ x: -1, y: 0 })] }, false, 422, ['operations[0].x', 'OUT_OF_RANGE']],
      ['width 0', { operations: [text({ width: 0 })] }, false, 422, ['operations[0].width', 'OUT_OF_RANGE']],
      ['align justify', { operations: [text({ align: 'justify' })] }, true, 200],
      ['text not a string', { operations: [{ type: 'add_text', text: 5 }] }, false, 422, ['operations[0].text', 'INVALID_TYPE']],
      ['text too long', { operations: [{ type: 'add_text', text: 'x'.repeat(1_000_001) }] }, false, 422, ['operations[0].text', 'TOO_LONG']],
      // A family name is a string to the contract; whether it is known depends on earlier operations.
      ['unknown font', { operations: [{ type: 'set_font', family: 'Arial' }] }, true, 422, ['operations[0].family', 'UNKNOWN_FONT']],
      ['colour name', { operations: [{ type: 'set_font', color: 'red' }] }, false, 422, ['operations[0].color', 'INVALID_FORMAT']],
      ['font size 0', { operations: [{ type: 'set_font', size: 0 }] }, false, 422, ['operations[0].size', 'OUT_OF_RANGE']],
      ['line height 5.5', { operations: [{ type: 'set_font', line_height: 5.5 }] }, false, 422, ['operations[0].line_height', 'OUT_OF_RANGE']],
      ['bold not a boolean', { operations: [{ type: 'set_font', bold: 'yes' }] }, false, 422, ['operations[0].bold', 'INVALID_TYPE']],
      ['compress not a boolean', { output: { compress: 'no' }, operations: [text()] }, false, 422, ['output.compress', 'INVALID_TYPE']],
      ['unknown operation type', { operations: [{ type: 'add_chart' }] }, false, 422, ['operations[0].type', 'INVALID_ENUM']],
      ['missing type', { operations: [{}] }, false, 422, ['operations[0].type', 'REQUIRED']],
      // Documented divergences: the engine, not the schema, rejects characters a
      // standard font cannot draw; the server accepts `op` while the contract names `type`.
      ['character no bundled font draws (an Egyptian hieroglyph)', { operations: [text({ text: '\u{13000}' })] }, true, 422, ['operations[0].text', 'UNSUPPORTED_CHARACTERS']],
      ['op alias', { operations: [{ op: 'add_text', text: 'x' }] }, false, 200],

      ['image, flowing', { operations: [image({ width: 50, align: 'center', spacing_after: 0 })] }, true, 200],
      ['image, absolute, data: URI', { operations: [image({ data: `data:image/png;base64,${PNG_1X1}`, x: 10, y: 10, width: 20, height: 10, fit: 'cover' })] }, true, 200],
      ['image base64 with line breaks', { operations: [image({ data: `${PNG_1X1.slice(0, 40)}\n${PNG_1X1.slice(40)}` })] }, true, 200],
      ['image without data', { operations: [{ type: 'add_image' }] }, false, 422, ['operations[0].data', 'REQUIRED']],
      ['image from a URL', { operations: [image({ data: 'https://example.com/logo.png' })] }, false, 422, ['operations[0].data', 'INVALID_VALUE']],
      ['image data not base64', { operations: [image({ data: '@@ not base64 @@' })] }, false, 422, ['operations[0].data', 'INVALID_FORMAT']],
      ['image fit stretch', { operations: [image({ fit: 'stretch' })] }, false, 422, ['operations[0].fit', 'INVALID_ENUM']],
      ['image width under 1', { operations: [image({ width: 0.5 })] }, false, 422, ['operations[0].width', 'OUT_OF_RANGE']],
      ['image y without x', { operations: [image({ y: 5 })] }, false, 422, ['operations[0].y', 'INVALID_VALUE']],
      ['image align with x and y', { operations: [image({ x: 5, y: 5, align: 'center' })] }, false, 422, ['operations[0].align', 'INVALID_VALUE']],
      // What the bytes hold is for the decoder to say, not the schema.
      ['image bytes are text', { operations: [image({ data: Buffer.from('plain text, not an image').toString('base64') })] }, true, 422, ['operations[0].data', 'UNSUPPORTED_IMAGE']],
      ['image truncated', { operations: [image({ data: PNG_1X1.slice(0, 48) })] }, true, 422, ['operations[0].data', 'INVALID_IMAGE']],

      ['table, every field', { operations: [table({ columns: [100, 'auto', '1.5fr'], header: [['A', 'B', 'C']], rows: [['a', { text: 'b', colspan: 2, align: 'right', bold: true, italic: false, color: '#333', fill: '#eee' }]], align: ['left', 'center', 'right'], width: 400, padding: 0, border: { width: 0, color: '#000' }, header_fill: '#ddd', zebra: '#f5f5f5', size: 9, color: '#111', spacing_after: 0 })] }, true, 200],
      ['table without rows', { operations: [{ type: 'add_table' }] }, false, 422, ['operations[0].rows', 'REQUIRED']],
      ['table of no rows', { operations: [table({ rows: [] })] }, true, 200],
      ['table column 0fr', { operations: [table({ columns: ['0fr'] })] }, false, 422, ['operations[0].columns[0]', 'INVALID_VALUE']],
      ['table column 0 points', { operations: [table({ columns: [0] })] }, false, 422, ['operations[0].columns[0]', 'OUT_OF_RANGE']],
      ['table column "wide"', { operations: [table({ columns: ['wide'] })] }, false, 422, ['operations[0].columns[0]', 'INVALID_FORMAT']],
      ['table cell a number', { operations: [table({ rows: [['a', 5]] })] }, false, 422, ['operations[0].rows[0][1]', 'INVALID_TYPE']],
      ['table cell rowspan', { operations: [table({ rows: [[{ text: 'a', rowspan: 2 }]] })] }, false, 422, ['operations[0].rows[0][0].rowspan', 'UNKNOWN_FIELD']],
      ['table header mixes cells and rows', { operations: [table({ header: ['a', ['b']] })] }, false, 422, ['operations[0].header', 'INVALID_VALUE']],
      ['table of 11 header rows', { operations: [table({ header: Array.from({ length: 11 }, () => ['h']) })] }, false, 422, ['operations[0].header', 'INVALID_VALUE']],
      ['table zebra colour name', { operations: [table({ zebra: 'grey' })] }, false, 422, ['operations[0].zebra', 'INVALID_FORMAT']],
      // Rules across fields that the contract states in words only.
      ['table colspan past the columns', { operations: [table({ columns: ['1fr', '1fr'], rows: [['a'], [{ text: 'b', colspan: 3 }]] })] }, true, 422, ['operations[0].rows[1][0].colspan', 'INVALID_VALUE']],
      ['table more alignments than columns', { operations: [table({ align: ['left', 'right'] })] }, true, 422, ['operations[0].align', 'INVALID_VALUE']],

      ['html', { operations: [html({ html: '<h1>Title</h1><p style="color: red; font-size: 120%">x <a href="https://example.com">y</a></p>', base_size: 11 })] }, true, 200],
      ['html with a remote image (skipped, never fetched)', { operations: [html({ html: '<img src="https://example.com/x.png"><p>x</p>' })] }, true, 200],
      ['html empty', { operations: [html({ html: '' })] }, true, 200],
      ['html missing', { operations: [{ type: 'add_html' }] }, false, 422, ['operations[0].html', 'REQUIRED']],
      ['html not a string', { operations: [html({ html: 5 })] }, false, 422, ['operations[0].html', 'INVALID_TYPE']],
      ['html base_size 0', { operations: [html({ base_size: 0 })] }, false, 422, ['operations[0].base_size', 'OUT_OF_RANGE']],
      ['html unknown field', { operations: [html({ css: 'p { color: red }' })] }, false, 422, ['operations[0].css', 'UNKNOWN_FIELD']],
      // The markup is a string to the contract: its images and element count are the engine's to judge.
      ['html image data: URI not base64', { operations: [html({ html: '<img src="data:image/png;base64,@@@">' })] }, true, 422, ['operations[0].html', 'INVALID_IMAGE']],
      ['html of too many elements', { operations: [html({ html: '<br>'.repeat(MAX_ELEMENTS + 1) })] }, true, 422, ['operations[0].html', 'TOO_LONG']],
    ];
    const validate = schemaValidator(render, requestSchema(render, 'post', '/api/v1/render'));
    for (const [name, body, valid, status, firstError] of cases) {
      assert.equal(validate(body), valid, `${name}: the contract says ${valid ? 'invalid' : 'valid'}`);
      const response = await fetch(`${base}/api/v1/render`, postJson(KEYS.pro, body));
      assert.equal(response.status, status, `${name}: server status`);
      const answer = await assertMatchesContract(render, 'post', '/api/v1/render', response);
      if (firstError !== undefined) {
        const [field, code] = firstError;
        const first = (answer as { errors: Node[] }).errors[0];
        assert.deepEqual({ field: first?.field, code: first?.code }, { field, code }, `${name}: first error`);
      }
    }
  });

  await t.test('422 field codes: a missing required field is REQUIRED, a body that is not an object INVALID_TYPE', async () => {
    for (const [body, field, code] of [
      [{}, 'operations', 'REQUIRED'],
      [{ operations: [{ type: 'add_text' }] }, 'operations[0].text', 'REQUIRED'],
      ['"x"', '(body)', 'INVALID_TYPE'],
      ['[1]', '(body)', 'INVALID_TYPE'],
      ['null', '(body)', 'INVALID_TYPE'],
    ] as const) {
      const response = await fetch(`${base}/api/v1/render`, postJson(KEYS.core, body));
      assert.equal(response.status, 422, JSON.stringify(body));
      const answer = (await assertMatchesContract(render, 'post', '/api/v1/render', response)) as { errors: Node[] };
      assert.deepEqual(answer.errors.map((e) => [e.field, e.code]), [[field, code]], JSON.stringify(body));
    }
  });

  await t.test('a 204 carries no Content-Length (RFC 9110 section 8.6)', async () => {
    const response = await fetch(`${base}/api/v1/render`, { method: 'OPTIONS' });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('content-length'), null);
  });

  await t.test('a request after HEAD or OPTIONS on the same connection is answered', async () => {
    const { port } = new URL(base);
    for (const first of ['HEAD /healthz', 'OPTIONS /healthz']) {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(`${first} HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n`));
      let raw = '';
      let closed = false;
      socket.on('data', (chunk) => (raw += chunk.toString('latin1')));
      socket.on('close', () => (closed = true));
      // Until both answers have begun, or the server closed the connection (which the assertion then reports).
      await waitFor(() => closed || (raw.match(/^HTTP\/1\.1 /gm)?.length ?? 0) >= 2, { timeoutMs: 5_000, what: `two answers to ${first} then GET` }).finally(() =>
        socket.destroy(),
      );
      assert.equal(raw.match(/^HTTP\/1\.1 /gm)?.length, 2, `${first} then GET: ${JSON.stringify(raw)}`);
    }
  });
});

test('limits answer as the contract says: 413, 429 and a configured errors base', async (t) => {
  const errorsBase = 'https://errors.example.com/platen';
  const server = await startTestServer({ PLATEN_MAX_BODY_BYTES: '1024', PLATEN_CORE_RPM: '2', PLATEN_ERRORS_BASE: `${errorsBase}/` });
  t.after(() => server.close());
  const render = await loadContract('render');

  await t.test('413 payload-too-large', async () => {
    const response = await fetch(`${server.base}/api/v1/render`, postJson(KEYS.core, { operations: [{ type: 'add_text', text: 'x'.repeat(2000) }] }));
    assert.equal(response.status, 413);
    const body = (await assertMatchesContract(render, 'post', '/api/v1/render', response, { errorsBase })) as Node;
    assert.equal(body.type, `${errorsBase}/payload-too-large`);
  });

  await t.test('429 client-rate-exceeded with Retry-After', async () => {
    for (let i = 0; i < 2; i++) {
      const ok = await fetch(`${server.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) });
      assert.equal(ok.status, 200);
      await assertMatchesContract(render, 'get', '/api/v1/capabilities', ok, { errorsBase });
    }
    const response = await fetch(`${server.base}/api/v1/capabilities`, { headers: bearer(KEYS.core) });
    assert.equal(response.status, 429);
    assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    await assertMatchesContract(render, 'get', '/api/v1/capabilities', response, { errorsBase });
  });
});

test('worker faults answer as the contracts say: 504, 500, then 503 while the breaker is open', async (t) => {
  // The timeout leaves room for a cold worker to load its modules, so that
  // only the spinning task times out.
  const server = await startTestServer({ PLATEN_TIMEOUT_MS: '1500' }, { workerFile: FAULT_WORKER, workerData: { gate: new SharedArrayBuffer(8) } });
  t.after(() => server.close());
  const { base } = server;
  const render = await loadContract('render');
  const accel = await loadContract('accel');
  const faulty = (fault: string) => postJson(KEYS.core, { operations: [{ type: 'add_page' }], fault });

  await t.test('504 request-timeout', async () => {
    // A timeout is the client's input, not a crash: it does not count against the breaker.
    const response = await fetch(`${base}/api/v1/render`, faulty('spin'));
    assert.equal(response.status, 504);
    await assertMatchesContract(render, 'post', '/api/v1/render', response);
  });

  await t.test('500 internal', async () => {
    // Five consecutive crashes open the breaker.
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${base}/api/v1/render`, faulty('throw'));
      assert.equal(response.status, 500);
      await assertMatchesContract(render, 'post', '/api/v1/render', response);
    }
  });

  await t.test('503 worker-pool-exhausted with Retry-After', async () => {
    const response = await fetch(`${base}/api/v1/render`, postJson(KEYS.core, { operations: [{ type: 'add_page' }] }));
    assert.equal(response.status, 503);
    assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    const body = (await assertMatchesContract(render, 'post', '/api/v1/render', response)) as Node;
    assert.equal(body.type, 'https://platen.dev/errors/worker-pool-exhausted');
  });

  await t.test('probes: readiness 503, liveness and health 200 degraded', async () => {
    const healthz = await fetch(`${base}/healthz`);
    assert.equal(healthz.status, 200);
    assert.equal(((await assertMatchesContract(render, 'get', '/healthz', healthz)) as Node).status, 'degraded');
    const readyz = await fetch(`${base}/readyz`);
    assert.equal(readyz.status, 503);
    assert.deepEqual(((await assertMatchesContract(render, 'get', '/readyz', readyz)) as Node).checks, { pool: false, keys: true, accepting: true });
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    const record = (await assertMatchesContract(accel, 'get', '/health', health)) as Node;
    assert.equal(record.status, 'degraded');
    assert.equal(record.circuit_breaker, 'open');
  });
});
