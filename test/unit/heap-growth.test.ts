// The pool widens V8's heap growing factor before its threads start
// (src/pool/heap-growth.ts), unless the command line already chose one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { widenHeapGrowth } from '../../src/pool/heap-growth.js';

test('the growing factor is set when the command line gives none', () => {
  assert.equal(widenHeapGrowth([]), true);
  assert.equal(widenHeapGrowth(['--max-old-space-size=4096', '--enable-source-maps']), true);
});

test('a --heap-growing-percent on the command line wins, in either spelling', () => {
  assert.equal(widenHeapGrowth(['--heap-growing-percent=50']), false);
  assert.equal(widenHeapGrowth(['--heap_growing_percent=50']), false);
});
