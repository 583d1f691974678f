// optimize's placement scan (workers/docops/content-walk.ts) on hand-written
// content streams, and the downsampling decision (targetPixels), without a
// PDF around them: the resources are plain maps from names to XObjects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { placedImageSizes, type XObjectTarget } from '../../workers/docops/content-walk.js';
import { targetPixels } from '../../workers/docops/optimize.js';

type Resources = Map<string, XObjectTarget<Resources>>;

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const image = (id: number): XObjectTarget<Resources> => ({ kind: 'image', id });
const form = (id: number, content: string, resources: Resources | undefined, matrix: [number, number, number, number, number, number] = [1, 0, 0, 1, 0, 0]): XObjectTarget<Resources> => ({
  kind: 'form',
  id,
  matrix,
  content: () => latin1(content),
  resources,
});

function sizes(content: string, resources: Resources): Record<number, [number, number]> {
  const found = placedImageSizes([{ content: latin1(content), resources }], (r, name) => r.get(name));
  assert.ok(found !== undefined);
  return Object.fromEntries([...found].map(([id, size]) => [id, [Math.round(size.width * 100) / 100, Math.round(size.height * 100) / 100]]));
}

test('an image is the unit square through the matrix in force: cm, q/Q, the largest placement wins', () => {
  const resources: Resources = new Map([['Im1', image(1)], ['Im2', image(2)]]);
  const content = 'q 100 0 0 50 10 10 cm /Im1 Do Q q 2 0 0 2 0 0 cm q 20 0 0 30 0 0 cm /Im1 Do Q Q /Im2 Do';
  // Im1: 100 x 50, then 40 x 60 (scaled by the outer cm): the largest of each side. Im2: after Q, the identity.
  assert.deepEqual(sizes(content, resources), { 1: [100, 60], 2: [1, 1] });
});

test('rotation and skew: the sides of the painted parallelogram', () => {
  assert.deepEqual(sizes('0 50 -100 0 300 0 cm /Im1 Do', new Map([['Im1', image(1)]])), { 1: [50, 100] });
});

test('form XObjects: their /Matrix and their own resources; a form without resources uses its caller\'s; a form that paints itself ends', () => {
  const inner: Resources = new Map([['Pic', image(7)]]);
  const resources: Resources = new Map([['Im1', image(1)]]);
  resources.set('Fm1', form(10, 'q 30 0 0 30 0 0 cm /Pic Do Q', inner, [2, 0, 0, 2, 0, 0]));
  resources.set('Fm2', form(11, '10 0 0 10 0 0 cm /Im1 Do', undefined));
  resources.set('Loop', form(12, '/Loop Do 5 0 0 5 0 0 cm /Im1 Do', resources));
  assert.deepEqual(sizes('/Fm1 Do 3 0 0 3 0 0 cm /Fm2 Do', resources), { 1: [30, 30], 7: [60, 60] });
  assert.deepEqual(sizes('/Loop Do', resources), { 1: [5, 5] });
});

test('strings, comments, arrays, dictionaries and inline image data never read as operators', () => {
  const resources: Resources = new Map([['Im1', image(1)], ['Im2', image(2)]]);
  const content = [
    'BT (a string (with) Do \\) q 9 0 0 9 0 0 cm /Im2 Do) Tj <3c2f496d3220446f> Tj ET',
    '% 9 0 0 9 0 0 cm /Im2 Do',
    '/Span << /ActualText (Q /Im2 Do) >> BDC EMC [ (x) 5 (y) ] TJ',
    'BI /W 4 /H 1 /BPC 8 /CS /G ID \u0000Q /Im2 Do\u00ff EI',
    'q 12 0 0 8 0 0 cm /Im1 Do Q',
  ].join('\n');
  assert.deepEqual(sizes(content, resources), { 1: [12, 8] });
});

test('a name with #xx escapes is looked up decoded', () => {
  assert.deepEqual(sizes('4 0 0 4 0 0 cm /Im#20A Do', new Map([['Im A', image(3)]])), { 3: [4, 4] });
});

test('downsampling: to the target resolution at the placed size, only past 1.5 times it, the aspect ratio kept', () => {
  // 100 pt at 150 dpi needs 208.3 px.
  assert.deepEqual(targetPixels({ width: 1000, height: 500 }, { width: 100, height: 50 }, 150), { width: 208, height: 104 });
  assert.equal(targetPixels({ width: 300, height: 150 }, { width: 100, height: 50 }, 150), undefined, '1.44 times: kept');
  assert.deepEqual(targetPixels({ width: 320, height: 160 }, { width: 100, height: 50 }, 150), { width: 208, height: 104 }, '1.54 times: downsampled');
  // Placed with a different aspect ratio (stretched): the more demanding side decides.
  assert.deepEqual(targetPixels({ width: 1000, height: 1000 }, { width: 100, height: 200 }, 72), { width: 200, height: 200 });
  assert.equal(targetPixels({ width: 1000, height: 1000 }, { width: 0, height: 0 }, 72), undefined, 'a degenerate placement decides nothing');
});
