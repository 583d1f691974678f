// Main-thread pieces with behaviour worth pinning down on their own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CircuitBreaker } from '../../src/pool/circuit-breaker.js';
import { ConfigError, loadConfig, unknownVariables } from '../../src/config.js';
import { requestIdFor } from '../../src/http/request-id.js';
import { declaredLength } from '../../src/http/body.js';
import { addressKey } from '../../src/http/client-address.js';

describe('circuit breaker', () => {
  test('opens after the threshold, half-opens after the cooldown with one probe, closes on success', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ threshold: 3, cooldownMs: 1000, now: () => now });
    breaker.fault();
    breaker.fault();
    breaker.success();
    breaker.fault();
    breaker.fault();
    assert.equal(breaker.state, 'closed', 'a success in between resets the count');
    breaker.fault();
    assert.equal(breaker.state, 'open');
    assert.equal(breaker.admit(), false);
    assert.equal(breaker.retryAfterSeconds, 1);
    now = 1000;
    assert.equal(breaker.state, 'half_open');
    assert.equal(breaker.admit(), true, 'one probe');
    assert.equal(breaker.admit(), false, 'only one probe at a time');
    breaker.success();
    assert.equal(breaker.state, 'closed');
  });

  test('a failed probe opens it again', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 100, now: () => now });
    breaker.fault();
    now = 100;
    assert.ok(breaker.admit());
    breaker.fault();
    assert.equal(breaker.state, 'open');
  });
});

describe('config', () => {
  test('defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.edition, 'enterprise');
    assert.equal(config.timeoutMs, 60_000);
    assert.equal(config.maxBodyBytes, 64 * 1024 * 1024);
    assert.equal(config.maxQueue, config.workers * 4);
    assert.deepEqual(config.rpmByTier, { core: 600, pro: 1000, enterprise: 10_000 });
    assert.ok(Object.isFrozen(config));
  });

  test('collects every problem at once', () => {
    assert.throws(
      () => loadConfig({ PLATEN_PORT: '99999', PLATEN_TIMEOUT_MS: 'soon', PLATEN_LOG_LEVEL: 'loud' }),
      (error: unknown) => error instanceof ConfigError && error.problems.length === 3,
    );
  });

  test('names unknown PLATEN_* variables', () => {
    assert.deepEqual(unknownVariables({ PLATEN_PROT: '1', PLATEN_PORT: '1', HOME: '/' }), ['PLATEN_PROT']);
  });
});

test('request ids: sane client ids are kept, others replaced', () => {
  assert.equal(requestIdFor('abc-123'), 'abc-123');
  assert.notEqual(requestIdFor('a'.repeat(200)), 'a'.repeat(200));
  assert.notEqual(requestIdFor('x\ny'), 'x\ny');
  assert.match(requestIdFor(''), /^[0-9a-f-]{36}$/);
});

test('Content-Length parsing', () => {
  assert.equal(declaredLength(''), undefined);
  assert.equal(declaredLength('42'), 42);
  assert.ok(Number.isNaN(declaredLength('-1') as number));
  assert.ok(Number.isNaN(declaredLength('1e3') as number));
  // Too long to be exact is still a number over every cap: 413, not 400.
  assert.ok((declaredLength('18446744073709551616') as number) > 2 ** 53);
});

test('address keys: IPv4 as is, IPv4-mapped unwrapped, IPv6 by /64', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('0000:0000:0000:0000:0000:ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('2001:db8:0:1::42'), '2001:db8:0:1::/64');
  assert.equal(addressKey('2001:db8:0:1:aaaa:bbbb:cccc:dddd'), addressKey('2001:db8::1:1:2:3:4'.replace('db8::1', 'db8:0:1')));
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
});
