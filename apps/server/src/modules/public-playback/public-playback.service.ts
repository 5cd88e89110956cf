/**
 * Public playback (docs/requirements.md#livestream-flow): for anyone, without signing in, whether
 * an embed page may be served, and the address of a stream's latest clip (counting views and
 * noting the website that shows it). Anonymous requests are bounded per network and per stream
 * (docs/decisions/063).
 */
import { ukPartsOf } from '@farmcam/contract/rules';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import { businessDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { ensureDatabaseSecret } from '../../lib/database-secret.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import { dataPausedUntil } from '../budget/data-caps.service.ts';
import { deriveSubStatus } from '../cameras/camera-state.ts';
import { eligibilityOf } from '../livestream/eligibility.ts';
import {
  findLivestream,
  findLivestreamCamera,
  type CameraPlanRow,
  type LivestreamRow,
} from '../livestream/livestream.service.ts';
import {
  isLinkToken,
  isSiteAllowed,
  ownCodeSubject,
  viewerDayHash,
} from '../livestream/public-links.rules.ts';
import { nextRecordingAfter, toSchedule, ukWallClock } from '../livestream/schedule.ts';
import type { PageLoadProof } from './page-load-token.ts';
import {
  publicPlaybackRepository as repository,
  type LivestreamLinkRow,
} from './public-playback.repository.ts';
import {
  publicNotice,
  publicNoticeHeaders,
  type PublicNotice,
  type PublicState,
} from './public-notice.ts';

/**
 * Why a public link does not play (decisions 096, 100); the player shows the sentence as a poster.
 * `reload`: the page's proof lapsed (open past the token's life without checking in, or moved to
 * another network); loading the page again proves it anew.
 */
export type PublicRefusal = 'not-allowed' | 'expired' | 'revoked' | 'reload';

/**
 * A public viewer, as far as limits and counting go: their network (an IPv4 address, an IPv6 /64,
 * `clientNetwork`), never stored raw, and whether the request looks like a person's browser
 * (public-links.rules.ts isBrowserRequest). The User-Agent plays no part in who is who.
 */
export interface PublicViewer {
  network: string;
  isBrowser?: boolean;
}

const viewerKeyName = 'livestream-viewer-key';
/** The viewer-days subject of a livestream's 14-day chart (every code and link together). */
const chartSubject = (livestreamId: string) => `chart:${livestreamId}`;

export interface LivestreamPlaybackDependencies {
  db: Database;
  clock: Clock;
  rateLimiter: RateLimiter;
  storage: ClipStorage;
  publicUrl: string;
}

/**
 * Bounds on the anonymous livestream-url and embed page (docs/decisions/063). A player asks once
 * as its page loads and once a minute after, so a network's allowance is sixty players behind one
 * address; a stream's allowance is thousands of viewers, high enough that no audience meets it and
 * only a crowd of networks could.
 */
export const publicLivestreamLimits = {
  perNetwork: { limit: 60, windowSeconds: 60 },
  perLivestream: { limit: 3000, windowSeconds: 60 },
  /** Distinct websites recorded per stream and UK day; more are counted together. */
  sitesPerDay: 20,
};
const tooManyRequests = 'Too many requests for this livestream. Please try again shortly.';

/** The player's caption: "Recorded at 14:05 on 24 Nov (UK time)" (ASCII: it goes in a header). */
export function recordedAtCaption(recordedAt: Date): string {
  const parts = ukPartsOf(recordedAt, {
    hour: '2-digit',
    minute: '2-digit',
    day: 'numeric',
    month: 'short',
    hourCycle: 'h23',
  });
  return `Recorded at ${parts.hour}:${parts.minute} on ${parts.day} ${parts.month} (UK time)`;
}

/** A notice as livestream-url's refusal: 403 for a page that may not play here, else 404. */
function noticeError(notice: PublicNotice): AppError {
  return new AppError(
    notice.state === 'not-allowed' || notice.state === 'reload' ? 'FORBIDDEN' : 'NOT_FOUND',
    notice.sentence,
    publicNoticeHeaders(notice),
  );
}

export function createLivestreamPlaybackService(deps: LivestreamPlaybackDependencies) {
  const { db, clock } = deps;
  const portalHost = new URL(deps.publicUrl).host.toLowerCase();

  /** Every anonymous request of a network (an IPv4 address, an IPv6 /64) counts here. */
  async function limitPublicRequest(network: string): Promise<void> {
    await deps.rateLimiter.consume({
      key: `livestream-url:network:${network}`,
      ...publicLivestreamLimits.perNetwork,
      message: tooManyRequests,
    });
  }

  /** A livestream's own public id, or a public link's token with its livestream. */
  async function resolve(
    id: string,
  ): Promise<{ livestream: LivestreamRow; link: LivestreamLinkRow | null } | null> {
    if (!isLinkToken(id)) {
      const livestream = await repository.findLivestreamByPublicId(db, id);
      return livestream ? { livestream, link: null } : null;
    }
    const link = await repository.findLinkByToken(db, id);
    const livestream = link ? await findLivestream(db, link.livestreamId) : undefined;
    return link && livestream ? { livestream, link } : null;
  }

  /**
   * Why a link may not play now, or null when it may. `proof` is the page load this request
   * proves (page-load-token.ts): a link plays only for a page we served, and an embed code only
   * for one loaded on a site on its list. A missing, forged, copied, stale or other network's
   * token is no proof, whatever Origin or Referer the request carries (decision 100).
   */
  function refusalOf(
    link: LivestreamLinkRow,
    proof: PageLoadProof | null,
    now: Date,
  ): PublicRefusal | null {
    if (link.revokedAt) return 'revoked';
    if (link.expiresAt && link.expiresAt <= now) return 'expired';
    if (!proof) return 'not-allowed';
    if (link.kind === 'embed' && !isSiteAllowed(proof.site, link.allowedDomains)) {
      return 'not-allowed';
    }
    return proof.isCurrent ? null : 'reload';
  }

  /**
   * Whether the viewer may learn which camera this is: anyone for the livestream's own code (it
   * is the farm's public code); for a public link, a page load it proved (any site for a link to
   * share, a listed site for an embed code). A page elsewhere learns nothing (decision 120).
   */
  function mayNameCamera(link: LivestreamLinkRow | null, site: string | null | undefined) {
    if (!link) return true;
    if (site === undefined) return false;
    return link.kind === 'link' || isSiteAllowed(site, link.allowedDomains);
  }

  /**
   * Why the camera itself shows nothing now, or null when it may play: switched off for good,
   * paused (its plan, or its data at the allowance until the month turns), not eligible for
   * another reason (not said: billing is not a viewer's business), or its schedule switched off.
   */
  async function cameraStateOf(
    livestream: LivestreamRow,
    plan: CameraPlanRow | undefined,
    now: Date,
  ): Promise<{ state: PublicState; resumesOn?: string | null } | null> {
    if (!plan) return { state: 'unavailable' };
    if (!eligibilityOf(plan, now).isEligible) {
      const subStatus = deriveSubStatus(
        plan.subscription_status
          ? {
              status: plan.subscription_status,
              pauseStartsOn: plan.pause_starts_on,
              pauseResumesOn: plan.pause_resumes_on,
            }
          : null,
        businessDay(now),
      );
      if (plan.state === 'terminated' || subStatus === 'canceled') return { state: 'terminated' };
      if (subStatus === 'paused') return { state: 'paused', resumesOn: plan.pause_resumes_on };
      return { state: 'unavailable' };
    }
    // Data paused at the allowance: back on the first day of the next UK month (decision 095).
    const resumesOn = await dataPausedUntil(db, plan.iccid, now);
    if (resumesOn) {
      return { state: 'data-paused', resumesOn };
    }
    if (!livestream.isActive && livestream.configuredAt) return { state: 'off' };
    return null;
  }

  let viewerKey: Promise<string> | undefined;

  /** Notes a network for a subject today; true the first time (so it counts). */
  async function isFirstToday(subject: string, viewer: PublicViewer, day: string) {
    viewerKey ??= ensureDatabaseSecret(db, viewerKeyName);
    const viewerHash = viewerDayHash(await viewerKey, viewer.network, day);
    return repository.noteViewerDay(db, { subject, day, viewerHash });
  }

  /**
   * Counts a view (or a refused play) of a link or of the livestream's own code, per site and UK
   * day, and a view in the livestream's 14-day chart: only from browsers, and once per network,
   * subject and day (a keyed hash of the network and day decides; decision 100). `site` is the
   * site a page load proved, or null ("direct": no website proved).
   */
  async function countPublic(
    livestream: LivestreamRow,
    linkId: string | null,
    site: string | null,
    viewer: PublicViewer,
    column: 'views' | 'refused',
  ): Promise<void> {
    if (!viewer.isBrowser) return;
    const day = ukWallClock(clock.now()).date;
    const subject = linkId ?? ownCodeSubject(livestream.id);
    const siteHost = site ?? 'direct';
    if (await isFirstToday(column === 'views' ? subject : `refused:${subject}`, viewer, day)) {
      await repository.countSubjectView(db, {
        subject,
        livestreamId: livestream.id,
        day,
        siteHost,
        column,
        sitesPerDay: publicLivestreamLimits.sitesPerDay,
      });
    }
    // The chart is the livestream's: a network watching through two links is one viewer there.
    if (column === 'views' && (await isFirstToday(chartSubject(livestream.id), viewer, day))) {
      await repository.countView(db, {
        livestreamId: livestream.id,
        day,
        referrerHost: siteHost,
        sitesPerDay: publicLivestreamLimits.sitesPerDay,
      });
    }
  }

  return {
    /**
     * Whether an embed page may be served for this id and why not (`site`: the site the frame's
     * own load named, or null), whether its clips carry sound, and the domains a public link's
     * embed code may be framed by (its page's frame-ancestors). Counts toward the network's
     * allowance of public requests; refusals are counted when the page's script proves its load.
     */
    async embeddable(
      publicId: string,
      viewer: PublicViewer,
      site: string | null = null,
    ): Promise<{
      hasAudio: boolean;
      /** Why a public link may not play here, in the viewer's words (public-notice.ts). */
      refusal: PublicNotice | null;
      allowedDomains: readonly string[];
    } | null> {
      await limitPublicRequest(viewer.network);
      const found = await resolve(publicId);
      if (!found) return null;
      // Recorded with audio: the player offers an unmute button (decision 046).
      const hasAudio = found.livestream.includeAudio;
      if (!found.link) return { hasAudio, refusal: null, allowedDomains: [] };
      const refusal = refusalOf(found.link, { site, isCurrent: true }, clock.now());
      const cameraName = mayNameCamera(found.link, site)
        ? ((await findLivestreamCamera(db, found.livestream.id))?.nickname ?? null)
        : null;
      return {
        hasAudio,
        refusal: refusal ? publicNotice(refusal, { cameraName }, clock.now()) : null,
        allowedDomains: found.link.kind === 'embed' ? found.link.allowedDomains : [],
      };
    },

    /**
     * The public livestream-url: the latest clip's address, for five minutes. A first load (not
     * the player's periodic check) counts one view per network and UK day; the site is the one
     * the page-load token proves, never a header. A public link plays only with a proof
     * (`refusalOf`). The website that marks the code as seen (the 10-day rule, decision 041) is
     * the proved one, or for the livestream's own code a player's Origin (decision 063).
     */
    async latestClipUrl(input: {
      publicId: string;
      proof: PageLoadProof | null;
      /** The website a browser's Origin names (never the portal, never an opaque origin). */
      origin: string | null;
      viewer: PublicViewer;
      isRefresh: boolean;
    }): Promise<{ url: string; caption: string; expiresAt: Date }> {
      await limitPublicRequest(input.viewer.network);
      const found = await resolve(input.publicId);
      const now = clock.now();
      if (!found) throw noticeError(publicNotice('missing', { cameraName: null }, now));
      const { livestream, link } = found;
      await deps.rateLimiter.consume({
        key: `livestream-url:livestream:${livestream.id}`,
        ...publicLivestreamLimits.perLivestream,
        message: tooManyRequests,
      });
      // Only a current proof names a site; a lapsed one proves nothing now.
      const proof = input.proof?.isCurrent ? input.proof : null;
      const provenSite = proof?.site ?? null;
      const plan = await findLivestreamCamera(db, livestream.id);
      // The camera's name only for a viewer who may know it: nothing about the camera reaches a
      // page that has not proved it may play this link (decision 120).
      const cameraName = mayNameCamera(link, input.proof?.site) ? (plan?.nickname ?? null) : null;
      if (link) {
        const refusal = refusalOf(link, input.proof, now);
        if (refusal) {
          // A lapsed page is not a try: the page played here and must be loaded again.
          if (!input.isRefresh && refusal !== 'reload') {
            await countPublic(livestream, link.id, provenSite, input.viewer, 'refused');
          }
          throw noticeError(publicNotice(refusal, { cameraName }, now));
        }
      }
      // Switched off, paused or ended: the website shows a poster that says so, not an old clip on
      // a loop (decision 046), and the player asks again later unless it is final (decision 120).
      const cameraState = await cameraStateOf(livestream, plan, now);
      if (cameraState) {
        throw noticeError(
          publicNotice(
            cameraState.state,
            { cameraName, resumesOn: cameraState.resumesOn ?? null },
            now,
          ),
        );
      }
      const clip = await repository.latestPlayableClip(db, livestream.id);
      if (!clip?.storageKey) {
        const schedule = toSchedule(livestream.scheduleHours, livestream.scheduleDays);
        throw noticeError(
          publicNotice(
            'no-clip',
            { cameraName, nextClipAt: nextRecordingAfter(schedule, now, false) },
            now,
          ),
        );
      }

      if (!input.isRefresh) {
        await countPublic(livestream, link?.id ?? null, provenSite, input.viewer, 'views');
      }
      const seenOn = provenSite ?? (link ? null : input.origin);
      const site = seenOn !== null && seenOn !== portalHost ? seenOn : null;
      const hourAgo = new Date(now.getTime() - 3_600_000);
      if (site && (!livestream.lastSeenOnSiteAt || livestream.lastSeenOnSiteAt < hourAgo)) {
        await repository.markSeenOnSite(db, livestream.id, now);
      }
      const { url, expiresAt } = await deps.storage.publicPlaybackUrl(clip.storageKey);
      return { url, caption: recordedAtCaption(clip.recordedAt), expiresAt };
    },
  };
}

export type LivestreamPlaybackService = ReturnType<typeof createLivestreamPlaybackService>;
