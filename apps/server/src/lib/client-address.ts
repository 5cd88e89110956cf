/**
 * Who a request comes from, as the per-client limits see it (docs/decisions/063).
 */
import { isIPv4, isIPv6 } from 'node:net';

/**
 * TRUST_PROXY as Fastify's `trustProxy`. Fastify 5.12 ignores a bare hop count (it cannot check the
 * peer), so a count becomes proxy-addr's hop function: the socket peer and the next `hops - 1`
 * X-Forwarded-For entries are proxies, and the entry before them is the client. That is only
 * sound when the server is reachable through the proxy alone; otherwise list the proxies.
 */
export function trustProxyOption(
  setting: false | number | string[],
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  const hops = setting;
  return (_address, hop) => hop < hops;
}

/**
 * The bucket a client address counts in: an IPv4 address on its own, an IPv6 address by its /64
 * (one subscriber's allocation: a single client can pick any of its 2^64 addresses).
 */
export function clientNetwork(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(ip: string): string[] {
  const withoutZone = ip.split('%')[0]!;
  const [head = '', tail] = withoutZone.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups].map(
    (group) => group.toLowerCase().replace(/^0+(?=.)/, ''),
  );
}
