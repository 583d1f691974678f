// The README documents every problem slug and every setting (fastify's
// test/internals/errors.test.js checks its docs the same way).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { CONFIG_VARIABLES } from '../src/config.js';
import { PROBLEMS } from '../src/http/problem.js';

const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');

test('the README starts with make run and make test', () => {
  const top = readme.split('\n').slice(0, 15).join('\n');
  assert.match(top, /make run/);
  assert.match(top, /make test/);
});

test('every problem slug is in the README error table with its status', () => {
  for (const [slug, { status }] of Object.entries(PROBLEMS)) {
    assert.match(readme, new RegExp(`\\| ${status} \\| \`${slug}\` \\|`), slug);
  }
});

test('every configuration variable is documented in the README', () => {
  for (const name of CONFIG_VARIABLES) assert.ok(readme.includes(`\`${name}\``), name);
});
