import ipaddr from 'ipaddr.js';

/**
 * Whether `address` (an IP literal) is an ordinary public unicast address: not loopback, private
 * (RFC 1918), link-local (169.254/16, where cloud metadata services answer), carrier-grade NAT,
 * multicast, broadcast, reserved, IPv6 unique-local or link-local. An IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries. Anything ipaddr.js cannot parse is
 * not public.
 */
export function isPublicAddress(address: string): boolean {
  return rangeOf(address) === 'unicast';
}

/** The range ipaddr.js puts an address in (`loopback`, `private`, `linkLocal`, …), for logs and notes. */
export function rangeOf(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return 'invalid';
  // process() turns ::ffff:a.b.c.d into a.b.c.d, so the IPv4 ranges apply to it.
  const parsed = ipaddr.process(bare);
  const range = parsed.range();
  if (range === 'unicast' && parsed.kind() === 'ipv6' && isEmbeddingIpv4(parsed as ipaddr.IPv6)) {
    return 'ipv4Embedded';
  }
  return range;
}

// ::a.b.c.d (the deprecated IPv4-compatible form) and ::ffff:0:a.b.c.d (RFC 6145) carry an IPv4
// address that ipaddr.js does not unwrap; 6to4, Teredo and NAT64 have ranges of their own, which are
// not `unicast` and so are refused already.
function isEmbeddingIpv4(address: ipaddr.IPv6): boolean {
  const [first = 0, second = 0, third = 0, fourth = 0, fifth = 0] = address.parts;
  return first === 0 && second === 0 && third === 0 && fourth === 0 && fifth === 0;
}

/** Whether `host` (a URL's hostname, brackets allowed) is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}
