// The pgvector endpoint's address policy (src/store/vectors/address-policy.ts),
// with a resolver the test controls: every address a name resolves to is
// judged, IPv6 forms that carry an IPv4 address are judged by it, and
// PLATEN_VECTOR_STORE_ALLOW's hosts and ranges let a deployment through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AddressDenied, AddressPolicy, embeddedIpv4 } from '../../src/store/vectors/address-policy.js';
import { open, seal } from '../../src/store/vectors/connection-book.js';

const answers: Record<string, string[]> = {
  'db.example.com': ['93.184.216.34'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
  'rebind.example.com': ['169.254.169.254'],
  'v6.example.com': ['2606:2800:220:1::1'],
};
const resolver = async (host: string) => {
  const list = answers[host];
  if (list === undefined) throw new Error('ENOTFOUND');
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

test('public addresses pass; the answer is the address checked', async () => {
  const policy = new AddressPolicy([], resolver);
  assert.deepEqual(await policy.resolve('db.example.com'), { address: '93.184.216.34', family: 4 });
  assert.deepEqual(await policy.resolve('v6.example.com'), { address: '2606:2800:220:1::1', family: 6 });
  assert.deepEqual(await policy.resolve('8.8.8.8'), { address: '8.8.8.8', family: 4 });
});

test('a name with one private answer among public ones is refused, as are names that do not resolve', async () => {
  const policy = new AddressPolicy([], resolver);
  await assert.rejects(policy.resolve('mixed.example.com'), AddressDenied);
  await assert.rejects(policy.resolve('rebind.example.com'), AddressDenied);
  await assert.rejects(policy.resolve('nowhere.example.com'), AddressDenied);
});

test('every non-public range is refused, IPv6 forms of IPv4 addresses included', () => {
  const policy = new AddressPolicy([], resolver);
  for (const address of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a9fe:a9fe', '2002:0a00:0001::1', '2001:db8::1']) {
    assert.equal(policy.allows(address), false, address);
  }
  for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700::1111', '::ffff:1.1.1.1', '172.32.0.1', '100.128.0.1']) {
    assert.equal(policy.allows(address), true, address);
  }
});

test('PLATEN_VECTOR_STORE_ALLOW: addresses, ranges and host names', async () => {
  const policy = new AddressPolicy(['127.0.0.1', '10.20.0.0/16', 'rebind.example.com', 'fd12::/16'], resolver);
  assert.equal(policy.allows('127.0.0.1'), true);
  assert.equal(policy.allows('127.0.0.2'), false);
  assert.equal(policy.allows('::ffff:127.0.0.1'), true);
  assert.equal(policy.allows('10.20.3.4'), true);
  assert.equal(policy.allows('10.21.3.4'), false);
  assert.equal(policy.allows('fd12::5'), true);
  assert.deepEqual(await policy.resolve('rebind.example.com'), { address: '169.254.169.254', family: 4 });
  assert.throws(() => new AddressPolicy(['10.0.0.0/33']), /prefix/);
  assert.throws(() => new AddressPolicy(['db.example.com/8']), /CIDR/);
});

test('embeddedIpv4 reads mapped, NAT64 and 6to4 addresses', () => {
  assert.equal(embeddedIpv4('::ffff:169.254.169.254'), '169.254.169.254');
  assert.equal(embeddedIpv4('::ffff:a9fe:a9fe'), '169.254.169.254');
  assert.equal(embeddedIpv4('64:ff9b::7f00:1'), '127.0.0.1');
  assert.equal(embeddedIpv4('2002:c0a8:0101::1'), '192.168.1.1');
  assert.equal(embeddedIpv4('2606:4700::1111'), undefined);
});

test('sealed connections open only with the same key and the same record id', () => {
  const key = Buffer.alloc(32, 7);
  const sealed = seal(key, 'record-a', '{"endpoint":"postgres://db/x","apiKey":"secret"}');
  assert.ok(!Buffer.from(sealed, 'base64').toString('latin1').includes('secret'));
  assert.equal(open(key, 'record-a', sealed), '{"endpoint":"postgres://db/x","apiKey":"secret"}');
  assert.equal(open(key, 'record-b', sealed), undefined);
  assert.equal(open(Buffer.alloc(32, 8), 'record-a', sealed), undefined);
  const tampered = Buffer.from(sealed, 'base64');
  tampered[14] = (tampered[14] as number) ^ 1;
  assert.equal(open(key, 'record-a', tampered.toString('base64')), undefined);
});

test('legacy numeric spellings of loopback (reliability plan case 37) are refused through the system resolver', async () => {
  // A postgres: URL's host is opaque to WHATWG URL parsing, so "2130706433" reaches the policy as written;
  // getaddrinfo reads these spellings as IPv4 (inet_aton) without a DNS query, and the policy judges that answer.
  const policy = new AddressPolicy([]);
  for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '0.0.0.0']) {
    await assert.rejects(policy.resolve(host), AddressDenied, host);
  }
  const endpoint = new URL('postgres://postgres@2130706433:5432/db');
  assert.equal(endpoint.hostname, '2130706433', 'the URL parser does not normalise an opaque host');
});
