/**
 * Public links of a livestream (issue 17, docs/decisions/096): a page to share with an expiry,
 * or an embed code that plays only on listed website domains; revoked and re-issued by the owner
 * or a manager; views counted per link and per site (one per viewer and UK day, bots left out).
 */
import { z } from 'zod';
import { iccid } from './common.ts';
import { livestreamLinkLimits } from './rules.ts';

export const livestreamLinkKinds = ['link', 'embed'] as const;
export type LivestreamLinkKind = (typeof livestreamLinkKinds)[number];

export const livestreamLinkStates = ['active', 'expired', 'revoked'] as const;

export const livestreamLink = z.object({
  id: z.string(),
  kind: z.enum(livestreamLinkKinds),
  label: z.string(),
  url: z.string().describe('The page to share (kind link) or the page the embed code frames'),
  embedCode: z.string().nullable().describe('HTML to paste into a website (kind embed)'),
  allowedDomains: z.array(z.string()).describe('Hosts it may play on; empty: any site'),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  state: z.enum(livestreamLinkStates),
  createdAt: z.string(),
  views: z.number().int().describe('Viewers over the last 30 days (one per viewer and day)'),
  refused: z.number().int().describe('Plays refused over the last 30 days'),
});
export type LivestreamLink = z.infer<typeof livestreamLink>;

export const livestreamLinkSiteViews = z.object({
  /** A link's id, or null for the livestream's own embed code. */
  linkId: z.string().nullable(),
  siteHost: z.string().describe("A website's host, or 'direct' when opened on its own"),
  views: z.number().int(),
  refused: z.number().int(),
});
export type LivestreamLinkSiteViews = z.infer<typeof livestreamLinkSiteViews>;

export const livestreamLinksQuery = z.object({ camera_id: iccid });

export const livestreamLinksResponse = z.object({
  links: z.array(livestreamLink).describe('Newest first; revoked and expired ones too'),
  sites: z.array(livestreamLinkSiteViews).describe('Views per link and site, last 30 days'),
  ownCode: z
    .object({ views: z.number().int(), refused: z.number().int() })
    .describe("The livestream's own embed code, last 30 days"),
});
export type LivestreamLinksResponse = z.infer<typeof livestreamLinksResponse>;

export const createLivestreamLinkBody = z.object({
  camera_id: iccid,
  kind: z.enum(livestreamLinkKinds),
  label: z.string().max(livestreamLinkLimits.labelMaxLength).optional(),
  /** A UK date (YYYY-MM-DD): the link works until the end of that day. */
  expires_on: z.string().optional(),
  /** Or a number of days from today. */
  days: z.number().int().optional(),
  /** Website domains an embed code may play on, e.g. "www.farm-shop.co.uk" or "*.example.com". */
  allowed_domains: z.array(z.string().max(300)).max(50).optional(),
});
export type CreateLivestreamLinkBody = z.infer<typeof createLivestreamLinkBody>;

export const livestreamLinkActionBody = z.object({
  camera_id: iccid,
  link_id: z.string().uuid('link_id: not a link id'),
});
export type LivestreamLinkActionBody = z.infer<typeof livestreamLinkActionBody>;

export const livestreamLinkResponse = z.object({ link: livestreamLink });
