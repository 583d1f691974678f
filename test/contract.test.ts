// The static OpenAPI contracts in api/ against the code and the running
// server: both documents are valid OpenAPI 3.1, pinned to the package
// version, list exactly the problem catalogue of src/http/problem.ts, name
// the same vocabulary as the render engine, and every answer a real server
// gives (probes, capabilities, render, problems) matches its documented
// response. fastify's test/internals/errors.test.js checks its docs against
// its error catalogue the same way. The job and session routes are driven
// through every documented state, each answer checked the same way.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { PROBLEMS } from '../src/http/problem.js';
import { STANDARD_FONT_NAMES } from '../workers/seams/pdf.js';
import { PAGE_SIZE_NAMES } from '../workers/render/page-sizes.js';
import { OPERATION_TYPES } from '../workers/render/schema.js';
import { MAX_DECODED_BYTES, MAX_DOCUMENT_IMAGE_BYTES, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from '../workers/render/images.js';
import { MAX_HTML_LENGTH } from '../workers/render/ops/html.js';
import { MAX_DEPTH } from '../workers/render/html/build.js';
import { MAX_ELEMENTS } from '../workers/render/html/parse.js';
import { CONTAINERS as CONTAINER_TAGS, DROPPED as DROPPED_TAGS } from '../workers/render/html/tags.js';
import { STANDARD_FAMILY_NAMES as FONT_FAMILIES } from '../workers/render/fonts.js';
import { gate } from './helpers/gate.js';
import { KEYS, bearer } from './helpers/keys.js';
import {
  assertMatchesContract,
  assertMatchesResponse,
  assertValid,
  isNode,
  loadContract,
  operation,
  readContractDocument,
  requestSchema,
  resolve,
  schemaValidator,
  type Contract,
  type ContractName,
  type HttpMethod,
  type Node,
} from './helpers/openapi.js';
import { FAULT_WORKER, startTestServer } from './helpers/server.js';
import { waitFor } from './helpers/wait.js';

const NAMES: readonly ContractName[] = ['render', 'accel'];

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

function pdfBytes(body: unknown): Uint8Array {
  assert.ok(body instanceof Uint8Array, 'expected a binary body');
  assert.equal(new TextDecoder().decode(body.subarray(0, 5)), '%PDF-', 'the body is not a PDF');
  return body;
}

/** Every media-type or parameter object in the document that has a schema and an example. */
function documentedExamples(value: unknown, at = '#'): Array<{ at: string; schema: Node; example: unknown }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => documentedExamples(item, `${at}/${i}`));
  if (!isNode(value)) return [];
  const found: Array<{ at: string; schema: Node; example: unknown }> = [];
  if (isNode(value.schema)) {
    const schema = value.schema;
    if ('example' in value) found.push({ at, schema, example: value.example });
    if (isNode(value.examples)) {
      for (const [name, example] of Object.entries(value.examples)) {
        if (isNode(example)) found.push({ at: `${at}/examples/${name}`, schema, example: example.value });
      }
    }
  }
  for (const [key, child] of Object.entries(value)) {
    if (key !== 'schema' && key !== 'example' && key !== 'examples') found.push(...documentedExamples(child, `${at}/${key}`));
  }
  return found;
}

/**
 * Every FieldError code the worker source can produce, read from the
 * source itself (workers/ runs the whole render path, and src/ only relays
 * its errors): literal `code: 'X'` fields, the image decoder's rejections,
 * the codes TaskFailure.field and TaskFailure.content are given,
 * and validation.ts's table of valibot issue types with its fallback. A
 * code built any other way must be added to these patterns.
 */
async function fieldErrorCodes(): Promise<string[]> {
  const root = new URL('../../workers/', import.meta.url);
  const files = (await readdir(root, { recursive: true })).filter((file) => file.endsWith('.ts'));
  const found = new Set<string>();
  for (const file of files) {
    const source = await readFile(new URL(file, root), 'utf8');
    for (const match of source.matchAll(/\bcode: '([A-Z][A-Z_]*)'/g)) found.add(match[1] as string);
    for (const match of source.matchAll(/new ImageRejection\(\s*'([A-Z][A-Z_]*)'/g)) found.add(match[1] as string);
    // TaskFailure.field(field, CODE, ...) and TaskFailure.content(slug, field, CODE, ...).
    for (const match of source.matchAll(/TaskFailure\.field\(\s*[^,]+,\s*'([A-Z][A-Z_]*)'/g)) found.add(match[1] as string);
    for (const match of source.matchAll(/TaskFailure\.content\(\s*[^,]+,\s*[^,]+,\s*'([A-Z][A-Z_]*)'/g)) found.add(match[1] as string);
  }
  const validation = await readFile(new URL('task/validation.ts', root), 'utf8');
  const table = /const CODES[^{]*\{([^}]*)\}/.exec(validation)?.[1];
  assert.ok(table !== undefined, 'workers/task/validation.ts has no CODES table');
  for (const match of table.matchAll(/'([A-Z][A-Z_]*)'/g)) found.add(match[1] as string);
  for (const match of validation.matchAll(/\?\? '([A-Z][A-Z_]*)'/g)) found.add(match[1] as string);
  return [...found].sort();
}

function componentSchemas(contract: Contract): Record<string, Node> {
  return resolve(contract, { $ref: '#/components/schemas' }) as Record<string, Node>;
}

test('both contracts are valid OpenAPI 3.1 documents', async (t) => {
  for (const name of NAMES) {
    await t.test(name, async () => {
      const document = await readContractDocument(name);
      const validator = new Validator();
      const result = await validator.validate(structuredClone(document));
      assert.equal(result.valid, true, `${name}.openapi.yaml: ${JSON.stringify(result.errors, null, 2)}`);
      assert.equal(validator.version, '3.1');
      assert.match(String(document.openapi), /^3\.1\.\d+$/);
    });
  }
  await t.test('the validator rejects a broken document (the check is not vacuous)', async () => {
    const broken = structuredClone(await readContractDocument('render'));
    (broken.paths as Node)['/healthz'] = { get: { responses: 'none' } };
    const result = await new Validator().validate(broken);
    assert.equal(result.valid, false);
  });
});

test('info.version equals the package version', async () => {
  assert.equal(packageVersion, '1.0.0-alpha');
  for (const name of NAMES) {
    const info = (await readContractDocument(name)).info as Node;
    assert.equal(info.version, packageVersion, `${name}.openapi.yaml info.version`);
  }
});

test('x-problem-slugs is exactly the PROBLEMS catalogue, in both contracts', async () => {
  const expected = Object.fromEntries(Object.entries(PROBLEMS).map(([slug, { status, title }]) => [slug, { status, title }]));
  for (const name of NAMES) {
    const contract = await loadContract(name);
    assert.deepEqual(Object.keys(contract.problems).sort(), Object.keys(PROBLEMS).sort(), `${name}: the set of slugs`);
    assert.deepEqual(contract.problems, expected, `${name}: status and title per slug`);
    // The human-readable table in info.description names every slug too.
    const description = String((contract.document.info as Node).description);
    for (const slug of Object.keys(PROBLEMS)) assert.ok(description.includes(`| ${slug} |`), `${name}: info.description does not list ${slug}`);
    assert.equal(contract.errorsBase, 'https://platen.dev/errors');
  }
});

test('every schema compiles in strict mode and every example matches its schema', async (t) => {
  for (const name of NAMES) {
    await t.test(name, async () => {
      const contract = await loadContract(name);
      let examples = 0;
      for (const [schemaName, schema] of Object.entries(componentSchemas(contract))) {
        schemaValidator(contract, schemaName);
        for (const example of (schema.examples as unknown[] | undefined) ?? []) {
          assertValid(contract, schemaName, example, `components.schemas.${schemaName} example`);
          examples++;
        }
      }
      for (const { at, schema, example } of documentedExamples(contract.document)) {
        assertValid(contract, schema, example, `example at ${at}`);
        examples++;
      }
      assert.ok(examples > 3, `${name}: only ${examples} examples checked`);
    });
  }
});

test('the render contract names the engine vocabulary', async (t) => {
  const contract = await loadContract('render');
  const schemas = componentSchemas(contract);

  await t.test('operation types: the discriminator maps exactly the rendered ones; all, and any planned ones, are described', () => {
    const operation = schemas.Operation as Node;
    const mapping = (operation.discriminator as Node).mapping as Node;
    assert.deepEqual(Object.keys(mapping).sort(), [...OPERATION_TYPES].sort());
    const oneOf = (operation.oneOf as Node[]).map((member) => member.$ref);
    assert.deepEqual([...oneOf].sort(), Object.values(mapping).sort(), 'Operation.oneOf and the discriminator mapping list the same schemas');
    for (const type of OPERATION_TYPES) {
      assert.ok(String(operation.description).includes(`\`${type}\``), `Operation.description does not mention ${type}`);
    }
    // Nothing is announced as unavailable once every planned type is rendered.
    assert.doesNotMatch(String(operation.description), /not available/);
    for (const type of OPERATION_TYPES) {
      const examples = resolve(contract, { $ref: mapping[type] }).examples as unknown[] | undefined;
      assert.ok(examples !== undefined && examples.length > 0, `${type} has no example`);
    }
  });

  await t.test('page sizes: every engine size in any case, and nothing else', () => {
    for (const size of PAGE_SIZE_NAMES) {
      for (const spelling of [size, size.toLowerCase(), size.toUpperCase()]) assertValid(contract, 'PageSize', spelling, `page size ${spelling}`);
    }
    const validate = schemaValidator(contract, 'PageSize');
    for (const bad of ['A11', 'D4', 'Tabloid', 'A', '', 'A4 ', 'Letters']) assert.equal(validate(bad), false, `PageSize accepts ${JSON.stringify(bad)}`);
  });

  await t.test('add_image: the image limits of the engine are the documented ones', () => {
    const description = String((schemas.AddImage as Node).description).replace(/\s+/g, ' ');
    for (const limit of ['20 MiB', '20,971,520', '40,000,000 pixels', '160,000,000 bytes', '256 MiB']) assert.ok(description.includes(limit), `AddImage does not mention ${limit}`);
    assert.equal(MAX_IMAGE_BYTES, 20_971_520);
    assert.equal(MAX_IMAGE_PIXELS, 40_000_000);
    assert.equal(MAX_DECODED_BYTES, 160_000_000);
    assert.equal(MAX_DOCUMENT_IMAGE_BYTES, 256 * 1024 * 1024);
  });

  await t.test('add_html: the element and nesting limits of the engine are the documented ones', () => {
    const description = String((schemas.AddHtml as Node).description).replace(/\s+/g, ' ');
    const html = ((schemas.AddHtml as Node).properties as Node).html as Node;
    assert.equal(html.maxLength, MAX_HTML_LENGTH);
    assert.ok(description.includes(`${MAX_ELEMENTS.toLocaleString('en')} elements`), `AddHtml does not mention ${MAX_ELEMENTS} elements`);
    assert.ok(description.includes(`more than ${MAX_DEPTH} deep`), `AddHtml does not mention the nesting depth ${MAX_DEPTH}`);
    for (const tag of [...DROPPED_TAGS, ...CONTAINER_TAGS]) assert.ok(description.includes(`\`${tag}\``), `AddHtml does not mention <${tag}>`);
  });

  await t.test('FieldError.code lists exactly the codes the render path can return', async () => {
    const code = ((schemas.FieldError as Node).properties as Node).code as Node;
    assert.deepEqual([...(code.enum as string[])].sort(), await fieldErrorCodes());
  });

  await t.test('font families: every standard family and the 14 standard names are documented', () => {
    const description = String((schemas.SetFont as Node).description);
    for (const name of [...FONT_FAMILIES, 'Times-BoldItalic']) assert.ok(description.includes(name), `SetFont does not mention ${name}`);
    assert.equal(STANDARD_FONT_NAMES.length, 14);
  });
});

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
    assert.equal(slugOf(early), 'job-not-completed');
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

test('held jobs answer as the contract says: Retry-After while pending or running, 409 job-not-completed, DELETE cancels', async (t) => {
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
    assert.equal(slugOf(early), 'job-not-completed');
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
