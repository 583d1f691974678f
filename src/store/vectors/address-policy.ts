// Where a pgvector `endpoint` may point. The endpoint is a URL a client
// gives us, so it could make this server reach what only the server can:
// its loopback, the private network, a cloud metadata service (SSRF). The
// host is resolved here, every address it resolves to is checked, and the
// connection goes to the checked address itself (not the name again), so a
// DNS answer that changes between check and connect (rebinding) changes
// nothing. PostgreSQL's protocol has no redirects; a TLS connection names
// the host for its certificate (servername) but still goes to this address.
//
// Denied: the IANA special-purpose ranges (RFC 6890 and its updates) that
// are not the public internet: this-network, loopback, RFC 1918 private,
// CGNAT (RFC 6598), link-local (metadata services: 169.254.169.254 and AWS's
// fd00:ec2::254 in fc00::/7), benchmarking, documentation, multicast,
// reserved; IPv6 unique-local, link-local, site-local, multicast,
// documentation, discard. An IPv4-mapped (::ffff:a.b.c.d), NAT64
// (64:ff9b::/96) or 6to4 (2002::/16) address is judged by the IPv4 address
// inside it. PLATEN_VECTOR_STORE_ALLOW (host names, addresses, CIDR ranges)
// lets a deployment reach its own database on such an address.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const DENIED_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const DENIED_V6: readonly (readonly [string, number])[] = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

export class AddressDenied extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressDenied';
  }
}

export interface ResolvedHost {
  /** The address to connect to: checked, never resolved again. */
  readonly address: string;
  readonly family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export class AddressPolicy {
  readonly #denied = new BlockList();
  readonly #allowed = new BlockList();
  readonly #allowedHosts = new Set<string>();
  readonly #resolve: Resolver;

  /** `allow`: PLATEN_VECTOR_STORE_ALLOW's entries; throws on one that is neither a host name, an address nor a CIDR range. */
  constructor(allow: readonly string[], resolve: Resolver = systemResolver) {
    this.#resolve = resolve;
    for (const [network, prefix] of DENIED_V4) this.#denied.addSubnet(network, prefix, 'ipv4');
    for (const [network, prefix] of DENIED_V6) this.#denied.addSubnet(network, prefix, 'ipv6');
    for (const entry of allow) {
      const [network = '', prefix] = entry.split('/');
      const family = isIP(network);
      if (family === 0) {
        if (prefix !== undefined) throw new Error(`PLATEN_VECTOR_STORE_ALLOW: "${entry}" is not a CIDR range`);
        this.#allowedHosts.add(entry.toLowerCase());
        continue;
      }
      const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) throw new Error(`PLATEN_VECTOR_STORE_ALLOW: "${entry}" has an invalid prefix length`);
      this.#allowed.addSubnet(network, bits, family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  /** The address to connect to for `hostname` (as a URL gives it: an IPv6 literal in brackets), or AddressDenied. */
  async resolve(hostname: string): Promise<ResolvedHost> {
    const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    let answers: readonly { address: string; family: number }[];
    try {
      answers = isIP(host) === 0 ? await this.#resolve(host) : [{ address: host, family: isIP(host) }];
    } catch {
      throw new AddressDenied(`the host "${host}" does not resolve`);
    }
    if (answers.length === 0) throw new AddressDenied(`the host "${host}" does not resolve`);
    const hostAllowed = this.#allowedHosts.has(host);
    // Every answer is checked: a name that resolves to one public and one private address is refused.
    for (const answer of answers) {
      if (!hostAllowed && !this.allows(answer.address)) {
        throw new AddressDenied(`"${host}" resolves to ${answer.address}, a loopback, private, link-local or otherwise non-public address; a deployment allows such addresses in PLATEN_VECTOR_STORE_ALLOW`);
      }
    }
    const first = answers[0] as { address: string; family: number };
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  /** Whether an address (not a name) may be connected to. */
  allows(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    if (family === 4) return this.#allowed.check(address, 'ipv4') || !this.#denied.check(address, 'ipv4');
    if (this.#allowed.check(address, 'ipv6')) return true;
    const inner = embeddedIpv4(address);
    if (inner !== undefined) return this.#allowed.check(inner, 'ipv4') || !this.#denied.check(inner, 'ipv4');
    return !this.#denied.check(address, 'ipv6');
  }
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
export function embeddedIpv4(address: string): string | undefined {
  const words = ipv6Words(address);
  if (words === undefined) return undefined;
  const mapped = words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff;
  const nat64 = words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0);
  if (mapped || nat64) return v4(words[6] as number, words[7] as number);
  if (words[0] === 0x2002) return v4(words[1] as number, words[2] as number);
  return undefined;
}

function v4(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit words of an IPv6 address, a dotted IPv4 tail included. */
function ipv6Words(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((w) => parseInt(w, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  const words = [...left, ...new Array<number>(missing).fill(0), ...right];
  return words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}
