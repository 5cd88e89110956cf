/**
 * The rules of public livestream links (docs/decisions/096, 100), free of the database: how a
 * website domain is written down and matched (and told to browsers as `frame-ancestors`), what
 * counts as a browser (views leave bots out), and the keyed hash that counts a network once a day
 * without keeping its address.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { livestreamLinkLimits } from '@farmcam/contract';
import { AppError } from '../../errors.ts';

/** The viewer-days and views subject of a livestream's own code (a link's is the link's id). */
export const ownCodeSubject = (livestreamId: string) => `stream:${livestreamId}`;

/** Where views from sites past a day's bound are counted (not a host name: it has spaces). */
export const otherSitesHost = '(other sites)';

/** An unguessable link token, told apart from a livestream's own public id (ls_) by its prefix. */
export const newLinkToken = () => `lk_${randomBytes(18).toString('base64url')}`;
export const isLinkToken = (id: string) => id.startsWith('lk_');

const labelPattern = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A website domain as a farmer may type it ("https://www.Farm-Shop.co.uk/webcam", "farm.example:8080",
 * "*.example.com"), written down as a lower-case host with its port if any: no scheme, path or
 * query. A leading "*." allows every subdomain (not the bare domain: list it too). Throws a 400
 * that names the entry.
 */
export function normaliseDomain(entry: string): string {
  const raw = entry.trim().toLowerCase();
  const invalid = () =>
    new AppError(
      'VALIDATION_FAILED',
      `"${entry.trim().slice(0, 80)}" is not a website domain. Write it like www.farm-shop.co.uk or *.farm-shop.co.uk.`,
    );
  if (!raw) throw invalid();
  const isWildcard = raw.startsWith('*.');
  const withoutWildcard = isWildcard ? raw.slice(2) : raw;
  let host: string;
  try {
    const url = new URL(
      /^[a-z][a-z0-9+.-]*:\/\//.test(withoutWildcard)
        ? withoutWildcard
        : `https://${withoutWildcard}`,
    );
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid();
    if (url.username || url.password) throw invalid();
    host = url.host;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw invalid();
  }
  const [name = '', port] = host.split(':');
  const labels = name.split('.');
  if (labels.length < 2 && name !== 'localhost') throw invalid();
  if (!labels.every((label) => labelPattern.test(label))) throw invalid();
  if (isWildcard && labels.length < 2) throw invalid();
  return `${isWildcard ? '*.' : ''}${name}${port ? `:${port}` : ''}`;
}

/** The listed domains, normalised, without repeats; a 400 for too many. */
export function normaliseDomains(entries: readonly string[]): string[] {
  const domains = [...new Set(entries.filter((entry) => entry.trim()).map(normaliseDomain))];
  if (domains.length > livestreamLinkLimits.maxDomains) {
    throw new AppError(
      'VALIDATION_FAILED',
      `List at most ${livestreamLinkLimits.maxDomains} website domains for one embed code.`,
    );
  }
  return domains;
}

/**
 * Whether `siteHost` (a host with its port, from Origin or Referer) is on the list: the same
 * host, or a subdomain of a "*." entry. A listed host without a port allows the host on any port.
 */
export function isSiteAllowed(siteHost: string | null, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  if (!siteHost) return false;
  const [name = '', port] = siteHost.toLowerCase().split(':');
  return allowed.some((entry) => {
    const [entryName = '', entryPort] = entry.split(':');
    if (entryPort && entryPort !== port) return false;
    if (entryName.startsWith('*.')) return name.endsWith(entryName.slice(1));
    return name === entryName;
  });
}

/**
 * The listed domains as CSP `frame-ancestors` sources, matching as `isSiteAllowed` does: http or
 * https, any port unless one is listed, a `*.` wildcard as listed (subdomains, not the bare
 * domain). Every page above the frame must be on the list, not only its parent.
 */
export function frameAncestorSources(allowed: readonly string[]): string {
  return allowed
    .flatMap((entry) => {
      const withPort = entry.includes(':') ? entry : `${entry}:*`;
      return [`http://${withPort}`, `https://${withPort}`];
    })
    .join(' ');
}

/**
 * Crawlers, link-preview fetchers, monitors, headless and scripted clients: never counted.
 * Matched against the User-Agent, case-insensitively.
 */
const botPattern =
  /bot\b|bot\/|crawl|spider|slurp|preview|headless|facebookexternalhit|facebookcatalog|embedly|whatsapp|telegram|slack|discord|skype|bingpreview|lighthouse|pagespeed|pingdom|uptime|monitor|statuscake|phantomjs|selenium|puppeteer|playwright|curl\/|wget\/|python|node-fetch|undici|axios|go-http|java\/|okhttp|libwww|httpclient|scrapy/i;

/**
 * A view is counted only from a browser (decision 096): a User-Agent that starts "Mozilla/" (every
 * browser's does), names no bot, and an Accept-Language header (browsers send one with every
 * request; crawlers and scripts mostly do not).
 */
export function isBrowserRequest(headers: {
  userAgent: string | undefined;
  acceptLanguage: string | undefined;
}): boolean {
  const userAgent = headers.userAgent ?? '';
  if (!userAgent.startsWith('Mozilla/')) return false;
  if (botPattern.test(userAgent)) return false;
  return Boolean(headers.acceptLanguage?.trim());
}

/**
 * One viewer on one UK day, as stored: a keyed hash of the viewer's network (an IPv4 address, an
 * IPv6 /64: `clientNetwork`) and the day, never the address. The browser plays no part: one
 * network sending twenty User-Agents is one viewer (docs/decisions/100).
 */
export function viewerDayHash(key: string, network: string, day: string): string {
  return createHmac('sha256', key).update(`${network}\n${day}`).digest('base64url').slice(0, 32);
}
