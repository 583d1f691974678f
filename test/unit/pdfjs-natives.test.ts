// pdf.js's legacy build bundles core-js, which replaced JSON.stringify,
// JSON.parse and Array.prototype.push with slower JavaScript versions in
// every worker (workers/seams/pdfjs-natives.ts). Once every task module is
// loaded, as in a pool thread, the built-ins must be the ones from before.
import { test } from 'node:test';
import assert from 'node:assert/strict';

test('loading every task (pdf.js among them) leaves JSON and Array.prototype.push as they were', async () => {
  const before = { stringify: JSON.stringify, parse: JSON.parse, push: Array.prototype.push };
  await import('../../workers/index.js');
  const { restoreNatives } = await import('../../workers/seams/pdfjs-natives.js');
  assert.equal(JSON.stringify, before.stringify);
  assert.equal(JSON.parse, before.parse);
  assert.equal(Array.prototype.push, before.push);
  assert.equal(Object.getOwnPropertyDescriptor(Array.prototype, 'push')?.enumerable, false);
  assert.deepEqual(restoreNatives(), [], 'nothing left to put back');
  // And they still work as JSON and push do.
  const list: number[] = [];
  list.push(1, 2);
  assert.deepEqual(JSON.parse(JSON.stringify({ list, text: '\u{1F600}\uD800' })), { list: [1, 2], text: '\u{1F600}\uD800' });
});
