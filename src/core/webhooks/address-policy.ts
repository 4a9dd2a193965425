/**
 * Which webhook URLs may be called (docs/webhooks.md, "Address rules"): `https` only unless http is
 * allowed; a host that is, or resolves to, a loopback, private, link-local, shared (100.64/10),
 * multicast, broadcast, unspecified, metadata (169.254.169.254) or otherwise reserved address is
 * refused unless private addresses are allowed. IP literals count in every spelling: the WHATWG URL
 * parser turns `2130706433`, `127.1` and `0x7f000001` into `127.0.0.1`, and IPv4-mapped IPv6
 * (`[::ffff:127.0.0.1]`), NAT64 and 6to4 are judged as the IPv4 address they carry, and IPv4-compatible
 * IPv6 (`[::127.0.0.1]`, `::/96`) is refused. Pure except for the injected
 * `resolve`, so the worker can check the very address it then connects to (no DNS rebinding).
 */
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Resolves a host name to its addresses (`dns.lookup` with `all: true`); rejects when it does not resolve. */
export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/**
 * Why an address is not public (e.g. `loopback`), or undefined for a public unicast address. Fails closed:
 * IPv4 must be in no special range; IPv6 must be global unicast (2000::/3) outside every special range
 * (documentation, benchmarking, ORCHID, Teredo, …), and nothing of `::/96` (IPv4-compatible, deprecated:
 * `[::127.0.0.1]`). IPv6 that carries an IPv4 address by a fixed rule (`::ffff:0:0/96` mapped,
 * `::ffff:0:0:0/96` translated, `64:ff9b::/96` NAT64, `2002::/16` 6to4) is judged as that IPv4 address.
 */
export function nonPublicReason(address: string): string | undefined {
  const ip = parseAddress(address);
  if (!ip) return 'not an IP address';
  if (ip.kind() === 'ipv4') return ipv4Reason(ip as ipaddr.IPv4);
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return ipv4Reason(embedded);
  const range = v6.range();
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `${range} (not public)`;
  if (v6.match(IPV4_COMPATIBLE)) return 'deprecated IPv4-compatible';
  if (!v6.match(GLOBAL_UNICAST)) return 'non-global (outside 2000::/3)';
  return undefined;
}

/** IPv6 written with a dotted IPv4 tail (`::127.0.0.1`, `::ffff:10.0.0.1`), zone id allowed. */
const DOTTED_TAIL = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})(%.*)?$/;

/**
 * Parses an address. ipaddr.js 2.5 reads any IPv6 with a dotted tail as IPv4-mapped (`::127.0.0.1` becomes
 * `::ffff:127.0.0.1`), so the tail is rewritten as two hex groups first: `::127.0.0.1` stays IPv4-compatible.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  let text = address;
  const dotted = DOTTED_TAIL.exec(address);
  if (dotted) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(dotted[2]!)) return undefined;
    const [a, b, c, d] = ipaddr.IPv4.parse(dotted[2]!).octets as [number, number, number, number];
    text = `${dotted[1]!}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  return ipaddr.isValid(text) ? ipaddr.parse(text) : undefined;
}

function ipv4Reason(ip: ipaddr.IPv4): string | undefined {
  const range = ip.range();
  if (range === 'unicast') return undefined;
  if (ip.toString() === '169.254.169.254') return 'cloud metadata';
  return RANGE_NAMES[range] ?? `${range} (not public)`;
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
/** Prefixes whose addresses carry an IPv4 address, with where it sits (index of its first 16-bit part). */
const IPV4_CARRIERS: ReadonlyArray<{ cidr: [ipaddr.IPv6, number]; at: number }> = [
  { cidr: ipaddr.parseCIDR('::ffff:0:0/96') as [ipaddr.IPv6, number], at: 6 },
  { cidr: ipaddr.parseCIDR('::ffff:0:0:0/96') as [ipaddr.IPv6, number], at: 6 },
  { cidr: ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number], at: 6 },
  { cidr: ipaddr.parseCIDR('2002::/16') as [ipaddr.IPv6, number], at: 1 },
];

/** The IPv4 address an IPv6 address carries by one of IPV4_CARRIERS, or undefined. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const carrier = IPV4_CARRIERS.find((c) => ip.match(c.cidr));
  if (!carrier) return undefined;
  const [hi, lo] = [ip.parts[carrier.at]!, ip.parts[carrier.at + 1]!];
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** ipaddr.js range names as the error messages say them. */
const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique local (private)',
  carrierGradeNat: 'shared (100.64.0.0/10)',
  multicast: 'multicast',
  broadcast: 'broadcast',
  unspecified: 'unspecified',
  reserved: 'reserved',
  teredo: 'Teredo tunnel',
  rfc6052: 'local-use NAT64',
  deprecatedSiteLocal: 'deprecated site-local',
  benchmarking: 'benchmarking',
  discard: 'discard-only',
  orchid2: 'cryptographic (ORCHID)',
  deprecatedOrchid: 'cryptographic (ORCHID)',
  droneRemoteIdProtocolEntityTags: 'drone-ID (DET)',
  segmentRouting: 'segment-routing',
  amt: 'multicast relay (AMT)',
  as112: 'sinkhole (AS112)',
  as112v6: 'sinkhole (AS112)',
};

/** The IP address a URL host spells (brackets of IPv6 removed), or undefined for a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
}

export type UrlCheck =
  | { ok: true; url: URL; /** The checked address to connect to; undefined when the name did not resolve. */ address?: { address: string; family: number } }
  | { ok: false; reason: string; /** True when only the name resolution failed. */ unresolved?: boolean };

/**
 * Checks a webhook URL against the policy, resolving its host with `resolve` unless it is an IP
 * literal. Every resolved address must be public (one private answer refuses the URL).
 * @returns the parsed URL and the first checked address, or why it is refused.
 */
export async function checkWebhookUrl(raw: string, policy: AddressPolicy, resolve: Resolve): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `\`url\` must be an absolute https URL; got "${raw}".` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: `\`url\` must use https; got "${url.protocol.replace(/:$/, '')}".` };
  }
  if (url.protocol === 'http:' && !policy.allowHttp) {
    return { ok: false, reason: '`url` must use https (http is not allowed on this server).' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: '`url` must not contain credentials (user:password@); authenticate with the signing secret.' };
  }
  const literal = ipLiteral(url.hostname);
  let addresses: Array<{ address: string; family: number }>;
  if (literal !== undefined) {
    addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(url.hostname);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      return { ok: false, unresolved: true, reason: `the host "${url.hostname}" does not resolve (${code}).` };
    }
    if (addresses.length === 0) return { ok: false, unresolved: true, reason: `the host "${url.hostname}" does not resolve.` };
  }
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const why = nonPublicReason(a.address);
      if (why) {
        return {
          ok: false,
          reason: `\`url\` must point to a public address; "${url.hostname}" ${literal ? 'is' : `resolves to ${a.address},`} a ${why} address.`,
        };
      }
    }
  }
  return { ok: true, url, address: addresses[0] };
}
