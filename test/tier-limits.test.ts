// The tier-payload limits (render spec section 1: "body-size and
// tier-payload limits"): each tier's body limit, checked once the key is
// known, on the declared length and on the bytes of a chunked body as they
// arrive; and the defaults, which let a font over PLATEN_MAX_FONT_BYTES reach
// the font route and be refused by its own rule (413 font-too-large) rather
// than by the body cap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { readProblem, textDocument } from './helpers/http.js';
import { KEYS, bearer } from './helpers/keys.js';
import { startTestServer, testEnv } from './helpers/server.js';

const MiB = 1024 * 1024;

test('defaults: the body cap stays 64 MiB; each tier may send a 50 MiB font in base64, plus 1 MiB of JSON', () => {
  const config = loadConfig(testEnv());
  assert.equal(config.maxBodyBytes, 64 * MiB);
  const expected = 4 * Math.ceil((50 * MiB) / 3) + MiB;
  assert.deepEqual(config.maxBodyBytesByTier, { core: expected, pro: expected, enterprise: expected });
  assert.equal(config.maxBodyBytesAnyTier, expected);
  // An operator's PLATEN_MAX_BODY_BYTES is every tier's default; a tier's own setting wins.
  const set = loadConfig(testEnv({ PLATEN_MAX_BODY_BYTES: '100000', PLATEN_MAX_BODY_BYTES_ENTERPRISE: '300000' }));
  assert.deepEqual(set.maxBodyBytesByTier, { core: 100_000, pro: 100_000, enterprise: 300_000 });
  assert.equal(set.maxBodyBytesAnyTier, 300_000);
});

test('a 50 MiB font reaches /v1/font/subset and gets 413 font-too-large, not payload-too-large', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  // Just over the font cap: the task refuses it on the base64 length, before decoding.
  const font = Buffer.alloc(50 * MiB + 1024, 0x41).toString('base64');
  const body = JSON.stringify({ font_data: font, codepoints: [65] });
  assert.ok(body.length > 64 * MiB, 'the body must be over the old 64 MiB cap for this test to mean anything');
  const response = await fetch(`${server.base}/v1/font/subset`, { method: 'POST', headers: { ...bearer(KEYS.core), 'content-type': 'application/json' }, body });
  const problem = await readProblem(response);
  assert.equal(response.status, 413);
  assert.equal(problem.slug, 'font-too-large');
});

test('each tier has its own limit: on the declared length and on a chunked body as it arrives', async (t) => {
  const server = await startTestServer({ PLATEN_MAX_BODY_BYTES_CORE: '4096', PLATEN_MAX_BODY_BYTES_PRO: '65536', PLATEN_MAX_BODY_BYTES_ENTERPRISE: '65536' });
  t.after(() => server.close());
  const body = JSON.stringify(textDocument('x'.repeat(8000)));
  const post = (key: string, chunked: boolean) =>
    fetch(`${server.base}/api/v1/render`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      // A stream has no length: fetch sends it chunked.
      body: chunked ? new Blob([body]).stream() : body,
      ...(chunked ? { duplex: 'half' } : {}),
    } as RequestInit);

  for (const chunked of [false, true]) {
    const refused = await post(KEYS.core, chunked);
    assert.equal(refused.status, 413, `core, chunked=${chunked}`);
    const problem = await readProblem(refused);
    assert.equal(problem.slug, 'payload-too-large');
    assert.match(problem.detail, /PLATEN_MAX_BODY_BYTES_CORE/);
    const accepted = await post(KEYS.pro, chunked);
    assert.equal(accepted.status, 200, `pro, chunked=${chunked}: ${await accepted.clone().text()}`);
    assert.equal(accepted.headers.get('content-type'), 'application/pdf');
  }

  // Over every tier's limit: refused before the key is even looked at.
  const huge = await fetch(`${server.base}/api/v1/render`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(70_000) });
  assert.equal(huge.status, 413);
});
