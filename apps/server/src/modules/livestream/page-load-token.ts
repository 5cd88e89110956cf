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
 * How long a token is accepted. The player asks every minute with the newest one, so ten minutes
 * carries it over a few missed checks (a hidden tab's timers are slowed, a network hiccup); a page
 * that slept longer loads itself again to prove its site anew.
 */
export const pageLoadTokenSeconds = 10 * 60;

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

/** What a genuine token proves: the page of this id was loaded on `site` (null: opened directly). */
export interface PageLoadProof {
  site: string | null;
}

export function createPageLoadTokens(secret: string, now: () => Date) {
  const mac = (publicId: string, site: string, issuedAt: number, network: string) =>
    createHmac('sha256', secret)
      .update(`page-load\n${publicId}\n${site}\n${issuedAt}\n${network}`)
      .digest('base64url')
      .slice(0, 22);

  return {
    /** A token for the page of `publicId` loaded on `site` (null: none) from `network`. */
    issue(publicId: string, site: string | null, network: string): string {
      const issuedAt = Math.floor(now().getTime() / 1000);
      const signedSite = site ?? noSite;
      const encodedSite = site === null ? noSite : Buffer.from(site).toString('base64url');
      return `${issuedAt}.${encodedSite}.${mac(publicId, signedSite, issuedAt, network)}`;
    },

    /** What a token proves, if it is genuine, recent, and for this id and network; else null. */
    verify(token: string | undefined, publicId: string, network: string): PageLoadProof | null {
      const [issuedText, encodedSite, signature, ...rest] = (token ?? '').split('.');
      if (!issuedText || !encodedSite || !signature || rest.length > 0) return null;
      if (!/^\d{1,12}$/.test(issuedText)) return null;
      const issuedAt = Number(issuedText);
      const age = now().getTime() / 1000 - issuedAt;
      if (age < -60 || age > pageLoadTokenSeconds) return null;
      const site =
        encodedSite === noSite ? noSite : Buffer.from(encodedSite, 'base64url').toString();
      if (site !== noSite && !siteHostPattern.test(site)) return null;
      const expected = Buffer.from(mac(publicId, site, issuedAt, network));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return { site: site === noSite ? null : site };
    },
  };
}

export type PageLoadTokens = ReturnType<typeof createPageLoadTokens>;
