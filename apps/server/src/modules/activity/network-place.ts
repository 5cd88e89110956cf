/**
 * Where an activity entry came from, in words rather than a raw IP address (decision 142). No
 * geolocation service is reachable from the portal and a country guessed from an address is
 * often wrong (mobile networks, VPNs), so the words say only what the log itself shows: whether
 * the person had used this network before, or that it is a private or the server's own.
 * A network is the address's /24 (IPv4) or /48 (IPv6): a home or farm broadband line keeps its
 * prefix when its address changes, and a phone moving between masts usually does not.
 */
import { isIPv4, isIPv6 } from 'node:net';

export const placeWords = {
  same: 'A network they used before',
  new: 'A new network for them',
  private: 'A private network',
  local: "The portal's own computer",
} as const;

/** An IPv4-mapped IPv6 address ("::ffff:203.0.113.7") as the IPv4 address it carries. */
const plain = (ip: string) => ip.trim().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/** The eight 16-bit groups of an IPv6 address, "::" expanded. */
function ipv6Groups(ip: string): string[] {
  const [head = '', tail] = ip.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups].map(
    (group) => group.toLowerCase().replace(/^0+(?=.)/, ''),
  );
}

/** The network an address belongs to (its /24 or /48), or null for what is not an address. */
export function networkOf(ip: string): string | null {
  const address = plain(ip);
  if (isIPv4(address)) return address.split('.').slice(0, 3).join('.');
  if (isIPv6(address)) return ipv6Groups(address).slice(0, 3).join(':');
  return null;
}

/** Loopback, or an address kept for private networks (RFC 1918, RFC 4193, link-local, CGNAT). */
function kindOf(ip: string): 'local' | 'private' | 'public' | null {
  const address = plain(ip);
  if (isIPv4(address)) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    if (a === 127) return 'local';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) {
      return 'private';
    }
    if ((a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127)) return 'private';
    return 'public';
  }
  if (isIPv6(address)) {
    const first = ipv6Groups(address)[0] ?? '0';
    if (ipv6Groups(address).join(':') === '0:0:0:0:0:0:0:1') return 'local';
    const value = parseInt(first, 16);
    if ((value & 0xfe00) === 0xfc00 || (value & 0xffc0) === 0xfe80) return 'private';
    return 'public';
  }
  return null;
}

/**
 * The words for an entry's address: `usedBefore` says whether the same person had acted from an
 * address of the same network before this entry.
 */
export function placeOf(
  ip: string | null,
  usedBefore: (network: string) => boolean,
): string | null {
  if (ip === null) return null;
  const kind = kindOf(ip);
  const network = networkOf(ip);
  if (kind === null || network === null) return null;
  if (kind === 'local') return placeWords.local;
  if (kind === 'private') return placeWords.private;
  return usedBefore(network) ? placeWords.same : placeWords.new;
}
