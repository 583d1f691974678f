// The key a client's address is counted under. IPv6 clients usually hold a
// whole /64 and can rotate within it at will, so per-address limits count
// the /64; IPv4 (and IPv4-mapped IPv6) addresses count as themselves.
export function addressKey(address: string): string {
  if (!address.includes(':')) return address;
  const mapped = /^(?:0{1,4}:){5}ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  return `${expand(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, `::` expanded. */
function expand(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].map((group) => group.replace(/^0+(?=.)/, '').toLowerCase());
}
