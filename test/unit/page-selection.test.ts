// The page-selection syntax every operation shares ("1-3,7", "4-"), and the
// pure page bookkeeping of merge and split (qpdf ranges, outline and link
// re-pointing), tested directly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { qpdfRange } from '../../workers/docops/assemble.js';
import { mapLinks, mapOutline, pageMap } from '../../workers/docops/structure.js';
import { TaskFailure } from '../../workers/task/json-task.js';
import { parsePageSelection, selectPages } from '../../workers/task/page-selection.js';

function failure(run: () => unknown): TaskFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof TaskFailure) return error;
    throw error;
  }
  assert.fail('expected a TaskFailure');
}

test('selections resolve in the order written, 1-based, open ranges to the end', () => {
  assert.deepEqual(selectPages('1-3,7', 10, 'pages', 100), [0, 1, 2, 6]);
  assert.deepEqual(selectPages('8-', 10, 'pages', 100), [7, 8, 9]);
  assert.deepEqual(selectPages(' 3 , 1 ', 10, 'pages', 100), [2, 0]);
  assert.deepEqual(selectPages('2,2', 3, 'pages', 100), [1, 1]);
});

test('every bad item is named, with its own code', () => {
  const errors = parsePageSelection('1,,x,0,5-2,3-', 'ranges[0]');
  assert.deepEqual(
    (errors as Array<{ field: string; code: string }>).map((e) => [e.field, e.code]),
    [
      ['ranges[0]', 'INVALID_FORMAT'],
      ['ranges[0]', 'INVALID_FORMAT'],
      ['ranges[0]', 'OUT_OF_RANGE'],
      ['ranges[0]', 'OUT_OF_RANGE'],
    ],
  );
  const outside = failure(() => selectPages('1,4-6,9', 5, 'pages', 100));
  assert.deepEqual(outside.errors.map((e) => e.message), ['"4-6" is outside the document, which has 5 pages.', '"9" is outside the document, which has 5 pages.']);
  assert.equal(failure(() => selectPages('1-50', 60, 'pages', 20)).errors[0]?.code, 'TOO_LARGE');
  assert.equal(failure(() => selectPages(Array.from({ length: 1001 }, () => '1').join(','), 5, 'pages', 5000)).errors[0]?.code, 'TOO_LONG');
});

test('qpdf ranges join consecutive pages', () => {
  assert.equal(qpdfRange([0, 1, 2, 6, 4, 5]), '1-3,7,5-6');
  assert.equal(qpdfRange([3]), '4');
});

test('outline items follow their pages; an item whose page is gone gives way to its children', () => {
  const outline = [
    { title: 'A', page: 0, view: ['Fit'], open: true, children: [{ title: 'A.1', page: 2, view: ['Fit'], open: true, children: [] }] },
    { title: 'B', page: 1, view: ['XYZ', 0, 700, null], open: true, children: [] },
  ];
  const map = pageMap([2, 1], 0);
  assert.deepEqual(
    mapOutline(outline, map).map((item) => [item.title, item.page, item.children.map((c) => [c.title, c.page])]),
    [['A.1', 0, []], ['B', 1, []]],
  );
  const links = mapLinks([[{ page: 1, view: ['Fit'] }, undefined], [{ page: 0, view: ['Fit'] }], []], [1, 0], pageMap([1, 0], 10));
  assert.deepEqual(links, [[{ page: 11, view: ['Fit'] }], [{ page: 10, view: ['Fit'] }, undefined]]);
  assert.deepEqual(mapLinks([[{ page: 2, view: ['Fit'] }]], [0], pageMap([0], 0)), [[null]]);
});
