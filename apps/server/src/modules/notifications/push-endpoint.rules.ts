import { isIP } from 'node:net';

/**
 * Which addresses the server will post push messages to (decision 123). A push subscription's
 * endpoint comes from the browser, so from anyone signed in: unchecked, it would make the server
 * post to any address it can reach, including the machines beside it (server-side request
 * forgery). Browsers' push services (Google's, Mozilla's, Apple's, Microsoft's) are public HTTPS
 * hosts on the default port, so an endpoint must be one: https, no user name or password, port
 * 443, and, unless private hosts are allowed (development and tests, whose push service runs on
 * this machine), a host name that is not an IP address, `localhost` or a local-only name.
 *
 * This checks the address as written; a public name that resolves to a private address is the
 * network's to refuse (an egress firewall, docs/production.md).
 */
export function pushEndpointRefusal(
  endpoint: string,
  { allowPrivateHosts }: { allowPrivateHosts: boolean },
): string | null {
  const refusal = 'This browser gave a push address we cannot send to. Please try another browser.';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return refusal;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return refusal;
  if (allowPrivateHosts) return null;
  if (url.port !== '' && url.port !== '443') return refusal;
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  const isLocalName =
    host === 'localhost' ||
    !host.includes('.') ||
    /\.(localhost|local|internal|lan|home|corp|intranet|localdomain|home\.arpa)$/.test(host);
  if (isIP(host) !== 0 || isLocalName) return refusal;
  return null;
}
