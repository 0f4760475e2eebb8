import { lookup as dnsLookup } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { appError } from '../errors.js';

/**
 * Addresses a webhook may not reach (SSRF): each range with what it is, as a refusal names it. The first
 * range that holds an address names it, so the narrower come before the wider.
 */
const RANGES: readonly [subnet: string, prefix: number, family: 'ipv4' | 'ipv6', what: string][] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (where cloud metadata services answer)'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'a reserved address'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation address'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['192.88.99.0', 24, 'ipv4', 'a 6to4 relay address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  // Every form that carries an IPv4 address inside an IPv6 one is refused whole, whatever the IPv4 one:
  // where it leads depends on the host's tunnels, relays and translators, not on the address alone.
  ['::', 96, 'ipv6', 'an IPv4-compatible address'],
  ['::ffff:0:0', 96, 'ipv6', 'an IPv4-mapped address'],
  ['::ffff:0:0:0', 96, 'ipv6', 'an IPv4-translated (SIIT) address'],
  ['64:ff9b::', 96, 'ipv6', 'a NAT64 address'],
  ['64:ff9b:1::', 48, 'ipv6', 'a NAT64 address'],
  ['2001::', 32, 'ipv6', 'a Teredo address'],
  ['2002::', 16, 'ipv6', 'a 6to4 address'],
  ['100::', 64, 'ipv6', 'a discard address'],
  ['2001:2::', 48, 'ipv6', 'a benchmarking address'],
  ['2001:10::', 28, 'ipv6', 'a reserved (ORCHID) address'],
  ['2001:20::', 28, 'ipv6', 'a reserved (ORCHID) address'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address'],
  ['3fff::', 20, 'ipv6', 'a documentation address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fec0::', 10, 'ipv6', 'a site-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
  // Public IPv6 unicast is 2000::/3 (IANA); the rest is reserved, whatever it may come to mean.
  ['::', 3, 'ipv6', 'a reserved address'],
  ['4000::', 2, 'ipv6', 'a reserved address'],
  ['8000::', 1, 'ipv6', 'a reserved address'],
];
const LISTS = RANGES.map(([subnet, prefix, family, what]) => {
  const list = new BlockList();
  list.addSubnet(subnet, prefix, family);
  return { list, family, what };
});

/** What an address is when a webhook may not reach it; undefined for a public address. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return LISTS.find((range) => range.family === family && range.list.check(address, family))?.what;
}

/** A URL's host as an address, when it is one (`[::1]` loses its brackets). */
const literal = (hostname: string) => (isIP(hostname.replace(/^\[|\]$/g, '')) ? hostname.replace(/^\[|\]$/g, '') : undefined);

/**
 * Refuses a webhook URL whose host is, or resolves to, an address it may not reach (checked at creation;
 * the connection checks again, as DNS can change). A host that does not resolve is refused too.
 */
export async function checkTarget(url: URL): Promise<void> {
  const address = literal(url.hostname);
  const addresses = address ? [address] : await lookup(url.hostname, { all: true, verbatim: true }).then(
    (found) => found.map((entry) => entry.address),
    () => { throw appError('BAD_REQUEST', `"url": the host ${url.hostname} does not resolve`); },
  );
  for (const each of addresses) {
    const what = refusedAddress(each);
    if (what) throw appError('BAD_REQUEST', `"url" points to ${what} (${each}): webhooks go to public addresses only`);
  }
}

/**
 * A DNS lookup for the connection that refuses what checkTarget refuses: the address a connection is
 * about to be made to is checked, not one resolved earlier. A literal address never reaches a lookup:
 * the sender checks it before connecting. `resolve` is the system's resolver but in tests of the answers.
 */
export function refusingLookup(resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, '', 4);
      const entries = found as unknown as { address: string; family: number }[];
      const refused = entries.map((entry) => [entry.address, refusedAddress(entry.address)] as const).find(([, what]) => what);
      if (refused) return callback(Object.assign(new Error(`${hostname} resolves to ${refused[1]} (${refused[0]})`), { code: 'EREFUSEDADDRESS' }), '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, all: typeof entries) => void)(null, entries);
      return callback(null, entries[0]!.address, entries[0]!.family);
    });
  };
}

export const safeLookup: LookupFunction = refusingLookup();

export { literal as addressOf };
