import type { lookup as dnsLookup } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { refusedAddress, refusingLookup } from '../../src/webhooks/targets.js';

/** Each refused class, with an address of it; the IPv6 forms that reach IPv4 whatever the IPv4 address inside. */
const refused: [address: string, what: string][] = [
  ['0.0.0.0', 'an unspecified address'],
  ['10.1.2.3', 'a private address'],
  ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.1', 'a loopback address'],
  ['169.254.169.254', 'a link-local address (where cloud metadata services answer)'],
  ['172.16.0.9', 'a private address'],
  ['192.0.0.8', 'a reserved address'],
  ['192.0.2.1', 'a documentation address'],
  ['192.88.99.1', 'a 6to4 relay address'],
  ['192.168.1.1', 'a private address'],
  ['198.18.0.1', 'a benchmarking address'],
  ['224.0.0.1', 'a multicast address'],
  ['255.255.255.255', 'a reserved address'],
  ['::', 'an unspecified address'],
  ['::1', 'a loopback address'],
  ['::7f00:1', 'an IPv4-compatible address'],
  ['::8.8.8.8', 'an IPv4-compatible address'],
  ['::ffff:127.0.0.1', 'an IPv4-mapped address'],
  ['::ffff:8.8.8.8', 'an IPv4-mapped address'],
  ['::ffff:0:7f00:1', 'an IPv4-translated (SIIT) address'],
  ['::ffff:0:808:808', 'an IPv4-translated (SIIT) address'],
  ['64:ff9b::7f00:1', 'a NAT64 address'],
  ['64:ff9b:1::a00:1', 'a NAT64 address'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a Teredo address'],
  ['2002:7f00:1::1', 'a 6to4 address'],
  ['2002:808:808::1', 'a 6to4 address'],
  ['100::1', 'a discard address'],
  ['2001:2::1', 'a benchmarking address'],
  ['2001:10::1', 'a reserved (ORCHID) address'],
  ['2001:20::1', 'a reserved (ORCHID) address'],
  ['2001:db8::1', 'a documentation address'],
  ['3fff::1', 'a documentation address'],
  ['fd00::1', 'a private (unique local) address'],
  ['fe80::1', 'a link-local address'],
  ['fec0::1', 'a site-local address'],
  ['feff::1', 'a site-local address'],
  ['ff02::1', 'a multicast address'],
  ['::1:7f00:1', 'a reserved address'],
  ['1::1', 'a reserved address'],
  ['5f00::1', 'a reserved address'],
  ['c000::1', 'a reserved address'],
];

const publicAddresses = ['93.184.215.14', '8.8.8.8', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '2001:4860:4860::8888', '2a00:1450:4001::1', '2001:200::1'];

describe('refusedAddress', () => {
  it.each(refused)('names %s %s', (address, what) => {
    expect(refusedAddress(address)).toBe(what);
  });

  it.each(publicAddresses)('lets public %s through', (address) => {
    expect(refusedAddress(address)).toBeUndefined();
  });
});

/** A resolver that answers `answers` for any name, as the system's would. */
const answering = (answers: { address: string; family: number }[]) =>
  ((_hostname: string, _options: unknown, callback: (error: null, found: typeof answers) => void) => callback(null, answers)) as unknown as typeof dnsLookup;

const lookUp = (answers: { address: string; family: number }[], all: boolean) => new Promise<{ error: NodeJS.ErrnoException | null; found: unknown }>((resolve) => {
  refusingLookup(answering(answers))('hooks.example.com', { all }, (error, found) => resolve({ error, found }));
});

describe('the lookup a delivery connects through', () => {
  it.each(refused.filter(([address]) => address.includes(':')))('refuses a name that resolves to %s (%s)', async (address, what) => {
    const { error } = await lookUp([{ address: '93.184.215.14', family: 4 }, { address, family: 6 }], false);
    expect(error?.code).toBe('EREFUSEDADDRESS');
    expect(error?.message).toBe(`hooks.example.com resolves to ${what} (${address})`);
  });

  it('answers a public name with its addresses, one or all as asked', async () => {
    const answers = [{ address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }, { address: '93.184.215.14', family: 4 }];
    expect(await lookUp(answers, true)).toEqual({ error: null, found: answers });
    expect(await lookUp(answers, false)).toEqual({ error: null, found: answers[0]!.address });
  });
});
