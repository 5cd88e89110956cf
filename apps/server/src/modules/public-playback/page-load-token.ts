/**
 * Proof of a page load (docs/decisions/063, 100). A browser loading the embed page inside a
 * website names that page as the Referer of the frame's own request for /embed/{id}; the embed
 * page hands its script a short-lived token, signed with a secret kept in the database, naming the
 * id (a livestream's own code or a public link), the site (or none: opened directly) and the
 * viewer's network (an IPv4 address, an IPv6 /64). livestream-url believes a site only from such
 * a token, and a public link's requests play only with one: every answer carries a renewed token
 * for the next request, so an open page keeps playing and one that stopped asking, moved network
 * or was copied elsewhere does not.
 *
 * Referer is set by browsers, not by page scripts; a client outside a browser can forge it and
 * take a token for its own network, which the per-network limits, the one-view-per-network-a-day
 * rule and the bound on distinct sites per day contain (decision 100 says what that leaves).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Database } from '../../db/client.ts';
import { ensureDatabaseSecret } from '../../lib/database-secret.ts';

const secretKey = 'embed-page-load-secret';
/**
 * How long a token is accepted. The player asks every minute with the newest one, so half an hour
 * carries it over missed checks (a hidden tab's slowed or frozen timers, a short sleep, an outage).
 * A page that was away longer is told to reload: a frame cannot prove its site again by itself
 * (its own reload names itself as the Referer, not the page around it).
 */
export const pageLoadTokenSeconds = 30 * 60;

/** The site a token names for a page opened on its own, not inside a website. */
const noSite = '-';

/** The secret that signs page-load tokens, shared by every process through the database. */
export function ensurePageLoadSecret(db: Database): Promise<string> {
  return ensureDatabaseSecret(db, secretKey);
}

const siteHostPattern = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:\d{1,5})?$/;

/**
 * The host (with port) of a real http(s) page named by a Referer or Origin header, unless it is
 * the portal itself; null for anything else (`null` and other opaque origins, `file:`, `data:`
 * and other schemes, malformed values).
 */
export function websiteHost(header: string | undefined, portalHost: string): string | null {
  if (!header) return null;
  try {
    const url = new URL(header);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    const host = url.host.toLowerCase();
    return siteHostPattern.test(host) && host !== portalHost ? host : null;
  } catch {
    return null;
  }
}

/**
 * What a genuine token of this id says: its page was loaded on `site` (null: opened directly).
 * `isCurrent` is false when it is too old or comes from another network: it proves nothing now,
 * and the page must be loaded again (the player says so).
 */
export interface PageLoadProof {
  site: string | null;
  isCurrent: boolean;
}

export function createPageLoadTokens(secret: string, now: () => Date) {
  const keyed = (text: string) => createHmac('sha256', secret).update(text).digest('base64url');
  /** The network, as the token carries it: keyed, so the address cannot be read back. */
  const networkTag = (network: string) => keyed(`page-load-network\n${network}`).slice(0, 11);
  const mac = (publicId: string, site: string, issuedAt: number, tag: string) =>
    keyed(`page-load\n${publicId}\n${site}\n${issuedAt}\n${tag}`).slice(0, 22);

  return {
    /** A token for the page of `publicId` loaded on `site` (null: none) from `network`. */
    issue(publicId: string, site: string | null, network: string): string {
      const issuedAt = Math.floor(now().getTime() / 1000);
      const signedSite = site ?? noSite;
      const encodedSite = site === null ? noSite : Buffer.from(site).toString('base64url');
      const tag = networkTag(network);
      return `${issuedAt}.${encodedSite}.${tag}.${mac(publicId, signedSite, issuedAt, tag)}`;
    },

    /** What a token says for this id, asked from `network`; null unless it is genuine. */
    verify(token: string | undefined, publicId: string, network: string): PageLoadProof | null {
      const [issuedText, encodedSite, tag, signature, ...rest] = (token ?? '').split('.');
      if (!issuedText || !encodedSite || !tag || !signature || rest.length > 0) return null;
      if (!/^\d{1,12}$/.test(issuedText)) return null;
      const issuedAt = Number(issuedText);
      const site =
        encodedSite === noSite ? noSite : Buffer.from(encodedSite, 'base64url').toString();
      if (site !== noSite && !siteHostPattern.test(site)) return null;
      const expected = Buffer.from(mac(publicId, site, issuedAt, tag));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const age = now().getTime() / 1000 - issuedAt;
      if (age < -60) return null;
      return {
        site: site === noSite ? null : site,
        isCurrent: age <= pageLoadTokenSeconds && tag === networkTag(network),
      };
    },
  };
}

export type PageLoadTokens = ReturnType<typeof createPageLoadTokens>;
