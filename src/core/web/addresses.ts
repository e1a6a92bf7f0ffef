/**
 * Which IP addresses a web fetch may connect to. The model chooses the URL, so a fetch is a way to
 * reach whatever the user's machine can reach: the loopback services, the LAN, a cloud's metadata
 * endpoint (which hands out credentials). Those are refused unless the user named the host.
 * Checked on the address the request really connects to (fetcher.ts resolves once and connects to
 * the address it checked), never on the name.
 */
import { BlockList, isIP } from 'node:net';

/** Why an address is not public, in words the user reads; undefined: a public address. */
export type PrivateReason = string;

const V4_RANGES: ReadonlyArray<[string, number, string]> = [
  ['0.0.0.0', 8, 'this network (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'a private network (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'loopback (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'link-local (169.254.0.0/16, where cloud metadata endpoints live)'],
  ['172.16.0.0', 12, 'a private network (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'documentation (192.0.2.0/24)'],
  ['192.88.99.0', 24, '6to4 relay anycast (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'a private network (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'documentation (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'documentation (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'multicast (224.0.0.0/4)'],
  ['240.0.0.0', 4, 'reserved (240.0.0.0/4, broadcast included)'],
];

const V6_RANGES: ReadonlyArray<[string, number, string]> = [
  ['::', 128, 'the unspecified address (::)'],
  ['::1', 128, 'loopback (::1)'],
  ['64:ff9b:1::', 48, 'local-use IPv4/IPv6 translation (64:ff9b:1::/48)'],
  ['100::', 64, 'discard-only (100::/64)'],
  ['2001:db8::', 32, 'documentation (2001:db8::/32)'],
  ['fc00::', 7, 'unique-local (fc00::/7, where cloud metadata endpoints such as fd00:ec2::254 live)'],
  ['fe80::', 10, 'link-local (fe80::/10)'],
  ['fec0::', 10, 'site-local (fec0::/10, deprecated)'],
  ['ff00::', 8, 'multicast (ff00::/8)'],
];

/** Cloud metadata endpoints named as such (each also falls in a range above; named so the refusal says what it is). */
const METADATA_ADDRESSES: ReadonlyMap<string, string> = new Map([
  ['169.254.169.254', 'the cloud metadata endpoint 169.254.169.254 (AWS, GCP, Azure, …)'],
  ['169.254.170.2', 'the AWS ECS task metadata endpoint'],
  ['100.100.100.200', 'the Alibaba Cloud metadata endpoint'],
  ['fd00:ec2::254', 'the AWS IPv6 metadata endpoint'],
]);

function blockList(ranges: ReadonlyArray<[string, number, string]>, family: 'ipv4' | 'ipv6'): Array<{ list: BlockList; reason: string }> {
  return ranges.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, reason };
  });
}

const V4 = blockList(V4_RANGES, 'ipv4');
const V6 = blockList(V6_RANGES, 'ipv6');

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!); // IPv4-mapped
  if (zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1)) return v4(groups[6]!, groups[7]!); // IPv4-compatible (deprecated)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!); // NAT64 well-known prefix
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!); // 6to4
  return undefined;
}

/** An IPv6 address as its eight 16-bit groups (a dotted IPv4 tail included); undefined when it is not one. */
function expandIpv6(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  const groups = [...front, ...fill, ...back];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * Why `address` (an IP literal) is not a public address, or undefined when it is. Anything that is
 * not a valid IP literal is refused too: the caller connects only to what this approved.
 */
export function privateAddressReason(address: string): PrivateReason | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return `"${address}" is not an IP address`;
  const named = METADATA_ADDRESSES.get(bare.toLowerCase());
  if (named) return named;
  if (family === 4) return V4.find((range) => range.list.check(bare, 'ipv4'))?.reason;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined) {
    const reason = privateAddressReason(inner);
    return reason === undefined ? undefined : `${bare}, which carries the IPv4 address ${inner}: ${reason}`;
  }
  return V6.find((range) => range.list.check(bare, 'ipv6'))?.reason;
}
