// Checks real HTTP responses against the static OpenAPI 3.1 contracts in
// api/. A contract is loaded once with `yaml`; its schemas are compiled with
// Ajv's 2020-12 dialect (the dialect OpenAPI 3.1 schemas are written in) in
// strict mode, so a typo in a contract's schema keyword fails loudly instead
// of validating nothing. Usage:
//
//   const contract = await loadContract('render');
//   const body = await assertMatchesContract(contract, 'post', '/api/v1/render', response);
//
// `path` is the contract's path template, not the request URL.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

// Both are CommonJS modules whose module.exports also carries `default`;
// under NodeNext the default import is module.exports, so `.default` is the
// constructor/plugin for the type checker and at run time alike.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
type Ajv = InstanceType<typeof Ajv2020>;
type ValidateFunction = ReturnType<Ajv['compile']>;

export type ContractName = 'render' | 'accel';
export type HttpMethod = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';
/** A node of the parsed YAML document. */
export type Node = Record<string, unknown>;

export interface Contract {
  readonly name: ContractName;
  readonly document: Node;
  /** `x-problem-slugs`: slug → { status, title }. */
  readonly problems: Readonly<Record<string, { status: number; title: string }>>;
  /** `x-errors-base.default`: the `type` prefix when PLATEN_ERRORS_BASE is not set. */
  readonly errorsBase: string;
  readonly ajv: Ajv;
  /** Base URI under which components.schemas are registered with Ajv (as $defs). */
  readonly schemaId: string;
}

/** Where a contract lives: api/ at the repository root (this file runs from dist/test/helpers). */
export function contractUrl(name: ContractName): URL {
  return new URL(`../../../api/${name}.openapi.yaml`, import.meta.url);
}

export async function readContractDocument(name: ContractName): Promise<Node> {
  const document: unknown = parse(await readFile(contractUrl(name), 'utf8'));
  assert.ok(isNode(document), `${name}.openapi.yaml does not hold a YAML mapping`);
  return document;
}

const cache = new Map<ContractName, Promise<Contract>>();

export function loadContract(name: ContractName): Promise<Contract> {
  let loading = cache.get(name);
  if (loading === undefined) {
    loading = build(name);
    cache.set(name, loading);
  }
  return loading;
}

async function build(name: ContractName): Promise<Contract> {
  const document = await readContractDocument(name);
  // Strict, except two checks that misfire on sound contract idioms:
  // strictRequired on `if/then: { required: [errors] }` (the problem's 422
  // rule names a property the enclosing schema defines), and strictTypes on
  // `allOf: [$ref, { properties: { status: { const: 503 } } }]` narrowing
  // fragments, whose type comes from the referenced schema.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, strictTypes: false, allErrors: true });
  addFormats(ajv);
  // OpenAPI's own schema keywords (OAS 3.1 section 4.8.24): annotations for Ajv.
  ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']);
  const schemaId = `urn:platen:contract:${name}`;
  const schemas = (node(document, 'components')?.schemas ?? {}) as Node;
  ajv.addSchema({ $id: schemaId, $defs: rewriteRefs(schemas, '#/$defs/') }, schemaId);
  const problems = (document['x-problem-slugs'] ?? {}) as Contract['problems'];
  const errorsBase = String(node(document, 'x-errors-base')?.default ?? '');
  return { name, document, problems, errorsBase, ajv, schemaId };
}

/** Copies a schema with `#/components/schemas/X` references pointed at `prefix + X`. */
function rewriteRefs(value: unknown, prefix: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, prefix));
  if (!isNode(value)) return value;
  const out: Node = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')
        ? prefix + child.slice('#/components/schemas/'.length)
        : rewriteRefs(child, prefix);
  }
  return out;
}

const compiled = new WeakMap<Contract, Map<unknown, ValidateFunction>>();

/**
 * A validator for a schema of the contract: a components.schemas name
 * ('RenderRequest') or a schema object taken from the document (e.g. a
 * response's media-type schema).
 */
export function schemaValidator(contract: Contract, schema: string | Node): ValidateFunction {
  let byKey = compiled.get(contract);
  if (byKey === undefined) {
    byKey = new Map();
    compiled.set(contract, byKey);
  }
  let validate = byKey.get(schema);
  if (validate === undefined) {
    validate =
      typeof schema === 'string'
        ? contract.ajv.compile({ $ref: `${contract.schemaId}#/$defs/${schema}` })
        : contract.ajv.compile(rewriteRefs(schema, `${contract.schemaId}#/$defs/`) as Node);
    byKey.set(schema, validate);
  }
  return validate;
}

/** Asserts that `value` is valid against a schema of the contract. */
export function assertValid(contract: Contract, schema: string | Node, value: unknown, what = 'value'): void {
  const validate = schemaValidator(contract, schema);
  if (!validate(value)) {
    assert.fail(`${what} does not match the ${contract.name} contract: ${describeErrors(validate)}\n${preview(value)}`);
  }
}

/** Resolves a local `$ref` (`#/components/...`) of the document, following chains. */
export function resolve(contract: Contract, value: unknown): Node {
  let current = value;
  for (let hops = 0; isNode(current) && typeof current.$ref === 'string'; hops++) {
    assert.ok(hops < 20, `reference loop at ${current.$ref}`);
    const ref: string = current.$ref;
    assert.ok(ref.startsWith('#/'), `only local references are supported, got ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((at, part) => (isNode(at) ? at[part] : undefined), contract.document);
    assert.ok(current !== undefined, `${contract.name} contract: unresolved reference ${ref}`);
  }
  assert.ok(isNode(current), `${contract.name} contract: expected an object, got ${preview(current)}`);
  return current;
}

/** The operation object for `method path`; fails when the contract does not describe it. */
export function operation(contract: Contract, method: HttpMethod, path: string): Node {
  const item = node(node(contract.document, 'paths'), path);
  assert.ok(item !== undefined, `${contract.name} contract has no path ${path}`);
  const op = node(item, method);
  assert.ok(op !== undefined, `${contract.name} contract has no ${method.toUpperCase()} ${path}`);
  return op;
}

/** The request body schema of an operation for a media type (default application/json). */
export function requestSchema(contract: Contract, method: HttpMethod, path: string, mediaType = 'application/json'): Node {
  const body = resolve(contract, operation(contract, method, path).requestBody);
  const media = node(node(body, 'content'), mediaType);
  assert.ok(media !== undefined && isNode(media.schema), `${method.toUpperCase()} ${path} takes no ${mediaType} body`);
  return media.schema;
}

export interface MatchOptions {
  /** The response answers a HEAD request: the GET operation's headers, and no body. */
  readonly head?: boolean;
  /** The server's PLATEN_ERRORS_BASE, when a test set one (default: the contract's x-errors-base). */
  readonly errorsBase?: string;
}

/**
 * Checks status, content type, headers and body of `response` against the
 * operation's documented response, and returns the body: parsed JSON for
 * JSON media types, bytes otherwise, undefined when there is none.
 * Consumes the response body.
 */
export async function assertMatchesContract(
  contract: Contract,
  method: HttpMethod,
  path: string,
  response: Response,
  options: MatchOptions = {},
): Promise<unknown> {
  const responses = node(operation(contract, method, path), 'responses') ?? {};
  const status = String(response.status);
  const documented = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
  const what = `${method.toUpperCase()} ${path} → ${response.status}`;
  assert.ok(documented !== undefined, `${contract.name} contract: ${what} is not documented (documented: ${Object.keys(responses).join(', ')})`);
  return check(contract, resolve(contract, documented), response, what, options);
}

/**
 * The same checks against a shared response of components.responses (e.g.
 * 'NotFound', 'MethodNotAllowed', 'Options'), for answers that belong to no
 * single operation. The status is given because a shared response has none.
 */
export async function assertMatchesResponse(
  contract: Contract,
  name: string,
  status: number,
  response: Response,
  options: MatchOptions = {},
): Promise<unknown> {
  const documented = node(node(node(contract.document, 'components'), 'responses'), name);
  assert.ok(documented !== undefined, `${contract.name} contract has no components.responses.${name}`);
  assert.equal(response.status, status, `expected ${status} for the ${name} response, got ${response.status}`);
  return check(contract, resolve(contract, documented), response, `${name} (${status})`, options);
}

async function check(contract: Contract, documented: Node, response: Response, what: string, options: MatchOptions): Promise<unknown> {
  checkHeaders(contract, documented, response, what);

  const bytes = new Uint8Array(await response.arrayBuffer());
  const content = node(documented, 'content');
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (options.head === true) {
    assert.equal(bytes.byteLength, 0, `${what}: a HEAD response has no body`);
  }
  if (content === undefined) {
    assert.equal(bytes.byteLength, 0, `${what}: the contract documents no body, got ${bytes.byteLength} bytes`);
    return undefined;
  }
  const media = node(content, mediaType);
  assert.ok(media !== undefined, `${what}: content type "${mediaType}" is not documented (documented: ${Object.keys(content).join(', ')})`);
  if (options.head === true) return undefined;

  if (!isJsonMediaType(mediaType)) return bytes;
  const text = new TextDecoder().decode(bytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`${what}: the ${mediaType} body is not JSON: ${text.slice(0, 200)}`);
  }
  if (isNode(media.schema)) assertValid(contract, media.schema, body, `${what} body`);
  if (mediaType === 'application/problem+json') checkProblem(contract, body as Node, response, what, options);
  return body;
}

function checkHeaders(contract: Contract, documented: Node, response: Response, what: string): void {
  for (const [name, ref] of Object.entries(node(documented, 'headers') ?? {})) {
    const header = resolve(contract, ref);
    const value = response.headers.get(name);
    if (value === null) {
      assert.ok(header.required !== true, `${what}: the required header ${name} is missing`);
      continue;
    }
    if (!isNode(header.schema)) continue;
    const validate = schemaValidator(contract, header.schema);
    // Header values are strings; an integer header (Retry-After) is checked as the number it spells.
    const candidate = /^\d+$/.test(value) && !validate(value) ? Number(value) : value;
    if (!validate(candidate)) assert.fail(`${what}: header ${name}: ${JSON.stringify(value)} ${describeErrors(validate)}`);
  }
}

/** What every problem document must also satisfy beyond its schema: the catalogue and the header it mirrors. */
function checkProblem(contract: Contract, body: Node, response: Response, what: string, options: MatchOptions): void {
  assert.equal(body.status, response.status, `${what}: the problem's status differs from the HTTP status`);
  const base = options.errorsBase ?? contract.errorsBase;
  const type = String(body.type);
  assert.ok(type.startsWith(`${base}/`), `${what}: type ${type} does not start with ${base}/`);
  const slug = type.slice(base.length + 1);
  const entry = contract.problems[slug];
  assert.ok(entry !== undefined, `${what}: slug "${slug}" is not in x-problem-slugs`);
  assert.equal(entry.status, response.status, `${what}: slug ${slug} is catalogued with status ${entry.status}`);
  assert.equal(body.title, entry.title, `${what}: the title of ${slug} differs from the catalogue`);
  assert.equal(body.request_id, response.headers.get('x-request-id'), `${what}: request_id differs from X-Request-Id`);
}

function isJsonMediaType(mediaType: string): boolean {
  return /^application\/(?:[\w.+-]+\+)?json$/.test(mediaType);
}

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
}

function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** A binary body checked to be a PDF (by its first bytes). */
export function pdfBytes(body: unknown): Uint8Array {
  assert.ok(body instanceof Uint8Array, 'expected a binary body');
  assert.equal(new TextDecoder().decode(body.subarray(0, 5)), '%PDF-', 'the body is not a PDF');
  return body;
}

/** The contract's components.schemas, by name. */
export function componentSchemas(contract: Contract): Record<string, Node> {
  return resolve(contract, { $ref: '#/components/schemas' }) as Record<string, Node>;
}

export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function node(parent: Node | undefined, key: string): Node | undefined {
  const child = parent?.[key];
  return isNode(child) ? child : undefined;
}
