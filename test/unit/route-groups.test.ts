// Route families are declared once per group (src/http/route.ts routeGroup),
// and a path no route matches answers in the flavour of the API whose routes
// share its first segment (src/http/router.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routeGroup, type Route } from '../../src/http/route.js';
import { unknownPathFamily } from '../../src/http/router.js';

const route = (path: string): Route => ({
  method: 'GET',
  path,
  auth: 'core',
  body: 'none',
  handle: () => ({ status: 200, mediaType: 'application/json', body: '{}' }),
});

test('routeGroup gives every route of the group its family and keeps its handler', async () => {
  const [mounted] = routeGroup('accel', [route('/v1/x')]);
  assert.equal(mounted?.family, 'accel');
  assert.equal((await mounted?.handle({} as never))?.status, 200);
});

test('an unknown path takes the family of the routes under its first segment', () => {
  const familyOf = unknownPathFamily([...routeGroup('render', [route('/api/v1/render'), route('/healthz')]), ...routeGroup('accel', [route('/v1/font/subset'), route('/health')])]);
  assert.equal(familyOf('/v1/nope'), 'accel');
  assert.equal(familyOf('/v1'), 'accel');
  assert.equal(familyOf('/health'), 'accel');
  assert.equal(familyOf('/api/v2/nope'), 'render');
  assert.equal(familyOf('/healthz/x'), 'render');
  assert.equal(familyOf('/nothing-here'), 'render');
});

test('one first segment in two families is refused', () => {
  assert.throws(() => unknownPathFamily([...routeGroup('render', [route('/v1/render')]), ...routeGroup('accel', [route('/v1/parse')])]), /both the render and the accel API live under \/v1/);
});
