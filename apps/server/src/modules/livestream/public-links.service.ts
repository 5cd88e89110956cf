/**
 * Public links of a livestream for its owner and managers (docs/decisions/096): list them with
 * their views per site over the last 30 days, make a link to share (with an expiry) or an embed
 * code for listed website domains (optional expiry), revoke one, re-issue one (the old token
 * stops, a new one with the same settings starts). Every change is audited.
 */
import {
  livestreamLinkLimits,
  type CreateLivestreamLinkBody,
  type LivestreamLink,
  type LivestreamLinksResponse,
} from '@farmcam/contract';
import { AppError, notFound } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import { businessDay, dayMs, endOfBusinessDay, isoDay } from '../../lib/business-calendar.ts';
import { requireOwnedSim } from '../ownership/ownership.ts';
import { buildEmbedCode, embedPageUrl } from './embed.ts';
import {
  auditActor,
  requireEligibleCamera,
  requireLivestream,
  type CustomerScope,
  type LivestreamServiceDependencies,
} from './livestream-access.ts';
import type { LivestreamRow } from './livestream.repository.ts';
import {
  publicLinksRepository as links,
  type LivestreamLinkRow,
} from './public-links.repository.ts';
import { newLinkToken, normaliseDomains, ownCodeSubject } from './public-links.rules.ts';

type Dependencies = Pick<LivestreamServiceDependencies, 'db' | 'clock' | 'publicUrl'>;

/** Links (of any state) a livestream keeps that are not revoked; more is a 400. */
const maxOpenLinks = 50;

export function linkStateOf(link: LivestreamLinkRow, now: Date): LivestreamLink['state'] {
  if (link.revokedAt) return 'revoked';
  if (link.expiresAt && link.expiresAt <= now) return 'expired';
  return 'active';
}

/** When a new link stops working: the end of a UK day given, or of today plus `days`. */
function expiryOf(input: CreateLivestreamLinkBody, now: Date): Date | null {
  const today = businessDay(now);
  const { maxDays } = livestreamLinkLimits;
  if (input.expires_on !== undefined && input.days !== undefined) {
    throw new AppError(
      'VALIDATION_FAILED',
      'Give either an expiry date or a number of days, not both.',
    );
  }
  if (input.days !== undefined) {
    if (input.days < 1 || input.days > maxDays) {
      throw new AppError('VALIDATION_FAILED', `A link can last from 1 to ${maxDays} days.`);
    }
    return endOfBusinessDay(
      isoDay(new Date(Date.parse(`${today}T00:00:00Z`) + input.days * dayMs)),
    );
  }
  if (input.expires_on !== undefined) {
    const day = input.expires_on;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || isoDay(new Date(`${day}T00:00:00Z`)) !== day) {
      throw new AppError(
        'VALIDATION_FAILED',
        'The expiry date is not a date. Use the form YYYY-MM-DD.',
      );
    }
    if (day < today) {
      throw new AppError(
        'VALIDATION_FAILED',
        'The expiry date has passed. Choose today or a later day.',
      );
    }
    const latest = isoDay(new Date(Date.parse(`${today}T00:00:00Z`) + maxDays * dayMs));
    if (day > latest) {
      throw new AppError('VALIDATION_FAILED', `A link can last at most ${maxDays} days.`);
    }
    return endOfBusinessDay(day);
  }
  if (input.kind === 'link') {
    throw new AppError(
      'VALIDATION_FAILED',
      'A link to share needs an expiry: choose a date or a number of days.',
    );
  }
  return null;
}

export function createPublicLinksService(deps: Dependencies) {
  const { db, clock } = deps;

  const present = (
    link: LivestreamLinkRow,
    totals: Map<string, { views: number; refused: number }>,
  ): LivestreamLink => {
    const url = embedPageUrl(deps.publicUrl, link.token);
    const total = totals.get(link.id) ?? { views: 0, refused: 0 };
    return {
      id: link.id,
      kind: link.kind,
      label: link.label,
      url,
      embedCode: link.kind === 'embed' ? buildEmbedCode(deps.publicUrl, link.token) : null,
      allowedDomains: link.allowedDomains,
      expiresAt: link.expiresAt?.toISOString() ?? null,
      revokedAt: link.revokedAt?.toISOString() ?? null,
      state: linkStateOf(link, clock.now()),
      createdAt: link.createdAt.toISOString(),
      views: total.views,
      refused: total.refused,
    };
  };

  async function livestreamOf(scope: CustomerScope, iccid: string): Promise<LivestreamRow> {
    await requireOwnedSim(db, scope.customerId, iccid);
    return requireLivestream(db, iccid);
  }

  async function audit(
    executor: Parameters<typeof writeAudit>[0],
    scope: CustomerScope,
    livestream: LivestreamRow,
    action: string,
    link: LivestreamLinkRow,
  ) {
    await writeAudit(executor, {
      ...auditActor(scope),
      action,
      subjectType: 'sim',
      subjectId: livestream.simIccid,
      details: {
        kind: link.kind,
        label: link.label,
        domains: link.allowedDomains,
        expiresAt: link.expiresAt?.toISOString() ?? null,
      },
    });
  }

  async function requireLink(livestream: LivestreamRow, linkId: string) {
    const link = await links.find(db, livestream.id, linkId);
    if (!link) throw notFound('This link does not exist (it may belong to another livestream).');
    return link;
  }

  return {
    async listLinks(scope: CustomerScope, iccid: string): Promise<LivestreamLinksResponse> {
      const livestream = await livestreamOf(scope, iccid);
      const now = clock.now();
      const fromDay = businessDay(
        new Date(now.getTime() - (livestreamLinkLimits.viewsDays - 1) * dayMs),
      );
      const [rows, sites] = await Promise.all([
        links.list(db, livestream.id),
        links.viewsBySite(db, livestream.id, fromDay),
      ]);
      const totals = new Map<string, { views: number; refused: number }>();
      for (const site of sites) {
        const total = totals.get(site.subject) ?? { views: 0, refused: 0 };
        total.views += site.views;
        total.refused += site.refused;
        totals.set(site.subject, total);
      }
      const ownSubject = ownCodeSubject(livestream.id);
      return {
        links: rows.map((row) => present(row, totals)),
        sites: sites.map((site) => ({
          linkId: site.subject === ownSubject ? null : site.subject,
          siteHost: site.site_host,
          views: site.views,
          refused: site.refused,
        })),
        ownCode: totals.get(ownSubject) ?? { views: 0, refused: 0 },
      };
    },

    async createLink(
      scope: CustomerScope,
      input: CreateLivestreamLinkBody,
    ): Promise<{ link: LivestreamLink }> {
      await requireEligibleCamera(deps, scope.customerId, input.camera_id);
      const livestream = await requireLivestream(db, input.camera_id);
      const now = clock.now();
      const expiresAt = expiryOf(input, now);
      const allowedDomains =
        input.kind === 'embed' ? normaliseDomains(input.allowed_domains ?? []) : [];
      if (input.kind === 'embed' && allowedDomains.length === 0) {
        throw new AppError(
          'VALIDATION_FAILED',
          'List at least one website domain the embed code may play on, e.g. www.farm-shop.co.uk.',
        );
      }
      const existing = await links.list(db, livestream.id);
      if (existing.filter((link) => !link.revokedAt).length >= maxOpenLinks) {
        throw new AppError(
          'VALIDATION_FAILED',
          `This livestream has ${maxOpenLinks} links. Revoke one you no longer use first.`,
        );
      }
      const label =
        input.label?.trim() ||
        (input.kind === 'embed' ? `Embed code for ${allowedDomains[0]}` : 'Shared link');
      const link = await db.transaction(async (transaction) => {
        const row = await links.insert(transaction, {
          livestreamId: livestream.id,
          token: newLinkToken(),
          kind: input.kind,
          label,
          allowedDomains,
          expiresAt,
        });
        await audit(transaction, scope, livestream, 'livestream.link-create', row);
        return row;
      });
      return { link: present(link, new Map()) };
    },

    async revokeLink(
      scope: CustomerScope,
      input: { iccid: string; linkId: string },
    ): Promise<{ link: LivestreamLink }> {
      const livestream = await livestreamOf(scope, input.iccid);
      const link = await requireLink(livestream, input.linkId);
      if (link.revokedAt) return { link: present(link, new Map()) };
      const revoked = await db.transaction(async (transaction) => {
        const row = (await links.revoke(transaction, link.id, clock.now())) ?? link;
        await audit(transaction, scope, livestream, 'livestream.link-revoke', row);
        return row;
      });
      return { link: present(revoked, new Map()) };
    },

    async reissueLink(
      scope: CustomerScope,
      input: { iccid: string; linkId: string },
    ): Promise<{ link: LivestreamLink }> {
      await requireEligibleCamera(deps, scope.customerId, input.iccid);
      const livestream = await requireLivestream(db, input.iccid);
      const link = await requireLink(livestream, input.linkId);
      const now = clock.now();
      if (link.expiresAt && link.expiresAt <= now) {
        throw new AppError(
          'VALIDATION_FAILED',
          'This link has expired: make a new one with a new expiry instead.',
        );
      }
      const fresh = await db.transaction(async (transaction) => {
        // Only one re-issue wins: the old token is revoked here or not at all.
        if (!link.revokedAt && !(await links.revoke(transaction, link.id, now))) {
          throw new AppError('CONFLICT', 'This link was changed meanwhile. Reload and try again.');
        }
        const row = await links.insert(transaction, {
          livestreamId: livestream.id,
          token: newLinkToken(),
          kind: link.kind,
          label: link.label,
          allowedDomains: link.allowedDomains,
          expiresAt: link.expiresAt,
          replacesId: link.id,
        });
        await audit(transaction, scope, livestream, 'livestream.link-reissue', row);
        return row;
      });
      return { link: present(fresh, new Map()) };
    },
  };
}

export type PublicLinksService = ReturnType<typeof createPublicLinksService>;
