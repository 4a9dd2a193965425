/**
 * Which webhook URLs may be called (docs/webhooks.md, "Address rules"): `https` only unless http is
 * allowed; a host that is, or resolves to, a loopback, private, link-local, shared (100.64/10),
 * multicast, broadcast, unspecified, metadata (169.254.169.254) or otherwise reserved address is
 * refused unless private addresses are allowed. IP literals count in every spelling: the WHATWG URL
 * parser turns `2130706433`, `127.1` and `0x7f000001` into `127.0.0.1`, and IPv4-mapped IPv6
 * (`[::ffff:127.0.0.1]`) is judged as the IPv4 address it carries. Pure except for the injected
 * `resolve`, so the worker can check the very address it then connects to (no DNS rebinding).
 */
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Resolves a host name to its addresses (`dns.lookup` with `all: true`); rejects when it does not resolve. */
export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** Why an address is not public (e.g. `loopback`), or undefined for a public unicast address. */
export function nonPublicReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  if (range === 'unicast') return undefined;
  if (ip.toString() === '169.254.169.254') return 'cloud metadata';
  return RANGE_NAMES[range] ?? `${range} (not public)`;
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
        return { ok: false, reason: `\`url\` must point to a public address; "${url.hostname}" ${literal ? 'is' : `resolves to ${a.address},`} a ${why} address.` };
      }
    }
  }
  return { ok: true, url, address: addresses[0] };
}
