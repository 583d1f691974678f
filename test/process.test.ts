// The server as a process: start-up, its log, configuration errors, signals.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadNativeBinding, uws } from '../src/http/uws.js';
import { KEYS, bearer } from './helpers/keys.js';
import { postJson, textDocument } from './helpers/http.js';
import { spawnServer } from './helpers/server.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

describe('process', () => {
  test('the native uWS binding is in use, and a missing one stops start-up instead of falling back', () => {
    assert.match(String(uws.App), /\[native code\]/);
    assert.throws(() => loadNativeBinding('999'), /cannot load the native uWebSockets\.js binding[\s\S]*does not run on the slow JavaScript fallback/);
  });

  test('logs one "listening" line with the port, and one completion line per request with the key redacted', async (t) => {
    const server = await spawnServer({ PLATEN_LOG_LEVEL: 'info' });
    t.after(() => server.kill('SIGKILL'));
    await postJson(server.base, '/api/v1/render', textDocument('hello'), { ...bearer(KEYS.pro), 'x-request-id': 'log-check-1' });
    await fetch(`${server.base}/api/v1/capabilities`, { headers: { ...bearer('svc_live_core1_notthesecretnotthesecret'), 'x-request-id': 'log-check-2' } });
    await server.kill('SIGTERM');
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(lines.filter((line) => line.msg === 'listening').length, 1);
    const render = lines.find((line) => line.req_id === 'log-check-1');
    assert.ok(render, 'completion line for the render');
    assert.equal(render.route, '/api/v1/render');
    assert.equal(render.status, 200);
    assert.equal(render.client, 'pro-client');
    assert.equal(render.level, 30);
    for (const field of ['bytes_in', 'bytes_out', 'queue_ms', 'wait_ms', 'task_ms', 'ms']) assert.equal(typeof render[field], 'number', field);
    const denied = lines.find((line) => line.req_id === 'log-check-2');
    assert.equal(denied?.status, 401);
    const output = server.output();
    for (const secret of [KEYS.pro, 'pppppppppppp', 'notthesecret', KEYS.pro.slice(0, 12)]) {
      assert.ok(!output.includes(secret), `the log never contains ${secret.slice(0, 6)}…`);
    }
  });

  test('with no key configured, one key is generated and printed once to stderr with a warning', async (t) => {
    const server = await spawnServer({ PLATEN_API_KEYS: '' });
    t.after(() => server.kill('SIGKILL'));
    const match = /WARNING[^\n]*\n\n\s+(svc_live_[A-Za-z0-9]+_[A-Za-z0-9_-]+)\n/.exec(server.output());
    assert.ok(match?.[1], server.output());
    const response = await fetch(`${server.base}/api/v1/capabilities`, { headers: bearer(match[1]) });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { data: { tier: string } }).data.tier, 'enterprise');
  });

  test('an invalid configuration lists every problem at once and exits 2', async () => {
    const run = promisify(execFile);
    const error = (await run(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', PLATEN_PORT: 'eighty', PLATEN_EDITION: 'gold', PLATEN_WORKERS: '0' },
    }).catch((e: unknown) => e)) as { code: number; stderr: string };
    assert.equal(error.code, 2);
    assert.match(error.stderr, /PLATEN_PORT/);
    assert.match(error.stderr, /PLATEN_EDITION/);
    assert.match(error.stderr, /PLATEN_WORKERS/);
  });

  test('SIGTERM: readiness goes false, the request in flight completes, the process exits 0', async (t) => {
    const server = await spawnServer({ PLATEN_WORKERS: '1' });
    t.after(() => server.kill('SIGKILL'));
    // A document large enough to still be rendering when the signal arrives.
    const heavy = postJson(server.base, '/api/v1/render', textDocument(...Array.from({ length: 2000 }, () => 'Lorem ipsum dolor sit amet. '.repeat(40))));
    for (;;) {
      const health = (await (await fetch(`${server.base}/health`)).json()) as { workers: { busy: number } };
      if (health.workers.busy === 1) break;
    }
    server.child.kill('SIGTERM');
    const response = await heavy;
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.ok((await response.arrayBuffer()).byteLength > 1000);
    assert.equal(await server.exited, 0);
    const output = server.output();
    const shuttingDown = output.indexOf('"msg":"shutting down"');
    const completed = output.search(/"route":"\/api\/v1\/render","status":200/);
    assert.ok(shuttingDown >= 0 && completed > shuttingDown, 'the render completed after the signal');
    assert.match(output, /"msg":"stopped"/);
  });
});
