/**
 * Proof that the embed page was loaded by a page on a website (docs/decisions/063). The browser
 * sends the framing page's address as the Referer of the frame's request for /embed/{id}; the
 * page's own calls to livestream-url carry the embed page as Referer, so the embed page hands its
 * script a short-lived signed token naming the framing site, and livestream-url believes a site
 * only from such a token (or a cross-origin call's Origin). A `site=` query value, which any
 * script can write, no longer counts. Referer and Origin are set by browsers, not by page
 * scripts; a client outside a browser can still forge them, which the per-client limits and the
 * bound on distinct sites per day contain.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Database } from '../../db/client.ts';
import { ensureDatabaseSecret } from '../../lib/database-secret.ts';

const secretKey = 'embed-page-load-secret';
/** The embed page's script asks for the clip as the page loads; a lazy frame loads when shown. */
export const pageLoadTokenSeconds = 15 * 60;

/** The secret that signs page-load tokens, shared by every process through the database. */
export function ensurePageLoadSecret(db: Database): Promise<string> {
  return ensureDatabaseSecret(db, secretKey);
}

/** One viewer, as far as counting goes: a hash of the client address and browser, never stored raw. */
export const viewerFingerprint = (viewer: { ip: string; userAgent: string }) =>
  createHash('sha256').update(`${viewer.ip}\n${viewer.userAgent}`).digest('base64url').slice(0, 22);

const siteHostPattern = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:\d{1,5})?$/;

/**
 * The host (with port) of a real http(s) page named by a Referer or Origin header, unless it is
 * the portal itself; null for anything else (`null` origins, other schemes, malformed values).
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

export function createPageLoadTokens(secret: string, now: () => Date) {
  const mac = (publicId: string, site: string, issuedAt: number, viewer: string) =>
    createHmac('sha256', secret)
      .update(`${publicId}\n${site}\n${issuedAt}\n${viewer}`)
      .digest('base64url')
      .slice(0, 22);

  return {
    /** A token for the embed page of `publicId`, loaded by `viewer` inside a page on `site`. */
    issue(publicId: string, site: string, viewer: string): string {
      const issuedAt = Math.floor(now().getTime() / 1000);
      const encodedSite = Buffer.from(site).toString('base64url');
      return `${issuedAt}.${encodedSite}.${mac(publicId, site, issuedAt, viewer)}`;
    },

    /** The site a token names, if it is genuine, recent, and for this stream and viewer. */
    verify(token: string | undefined, publicId: string, viewer: string): string | null {
      const [issuedText, encodedSite, signature, ...rest] = (token ?? '').split('.');
      if (!issuedText || !encodedSite || !signature || rest.length > 0) return null;
      const issuedAt = Number(issuedText);
      const age = now().getTime() / 1000 - issuedAt;
      if (!Number.isInteger(issuedAt) || age < -60 || age > pageLoadTokenSeconds) return null;
      const site = Buffer.from(encodedSite, 'base64url').toString();
      if (!siteHostPattern.test(site)) return null;
      const expected = Buffer.from(mac(publicId, site, issuedAt, viewer));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected) ? site : null;
    },
  };
}

export type PageLoadTokens = ReturnType<typeof createPageLoadTokens>;
