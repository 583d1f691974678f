// The static OpenAPI contracts in api/ against the code: both documents are
// valid OpenAPI 3.1, pinned to the package version, list exactly the
// problem catalogue of src/http/problem.ts, every schema compiles and every
// example matches its schema, and the render contract names the same
// vocabulary as the render engine (operation types, page sizes, limits,
// FieldError codes read from the worker source). fastify's
// test/internals/errors.test.js checks its docs against its error
// catalogue the same way. Answers of a running server: contract.test.ts
// and contract-jobs.test.ts.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
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
import {
  assertValid,
  componentSchemas,
  isNode,
  loadContract,
  readContractDocument,
  resolve,
  schemaValidator,
  type ContractName,
  type Node,
} from './helpers/openapi.js';

const NAMES: readonly ContractName[] = ['render', 'accel'];

const packageVersion = (JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

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
