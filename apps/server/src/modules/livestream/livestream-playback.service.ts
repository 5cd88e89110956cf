/**
 * Public playback (docs/requirements.md#livestream-flow): for anyone, without signing in, whether
 * an embed page may be served, the address of a stream's latest clip (counting views and noting
 * the website that shows it), the marketing page's live demo, and whether the demo camera can run
 * here. Anonymous requests are bounded per network and per stream (docs/decisions/063).
 */
import { createHash } from 'node:crypto';
import type { DemoCameraResponse, ShowcaseResponse } from '@farmcam/contract';
import { inArray } from 'drizzle-orm';
import { appSettings } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { dayMs } from '../../lib/business-calendar.ts';
import { clientNetwork } from '../../lib/client-address.ts';
import { eligibilityOf } from './eligibility.ts';
import type { LivestreamServiceDependencies } from './livestream-access.ts';
import { livestreamRepository as repository } from './livestream.repository.ts';
import { showcaseFailureKey, type ShowcaseFailure } from './recording.service.ts';
import { ukWallClock } from './schedule.ts';

export type LivestreamPlaybackDependencies = Pick<
  LivestreamServiceDependencies,
  | 'db'
  | 'clock'
  | 'rateLimiter'
  | 'storage'
  | 'recordingQueue'
  | 'publicUrl'
  | 'log'
  | 'showcaseSource'
  | 'demoCamera'
>;

/** Signed clip addresses handed out live at least this long (the embed renews after 30 min). */
export const playbackLifetimeSeconds = 2 * 3600;
const showcaseKey = 'livestream-showcase';
const showcaseMaxAgeMs = 3_600_000;
/** After a failed demo recording, the next attempt waits this long. */
export const showcaseRetryAfterFailureMs = 10 * 60_000;

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

const ukCaptionFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  hour: '2-digit',
  minute: '2-digit',
  day: 'numeric',
  month: 'short',
  hourCycle: 'h23',
});

/** The player's caption: "Recorded at 14:05 on 24 Nov (UK time)" (ASCII: it goes in a header). */
export function recordedAtCaption(recordedAt: Date): string {
  const parts = Object.fromEntries(
    ukCaptionFormat.formatToParts(recordedAt).map((part) => [part.type, part.value]),
  );
  return `Recorded at ${parts.hour}:${parts.minute} on ${parts.day} ${parts.month} (UK time)`;
}

export function createLivestreamPlaybackService(deps: LivestreamPlaybackDependencies) {
  const { db, clock } = deps;
  const portalHost = new URL(deps.publicUrl).host.toLowerCase();

  /** Every anonymous request of a network (an IPv4 address, an IPv6 /64) counts here. */
  async function limitPublicRequest(ip: string): Promise<void> {
    await deps.rateLimiter.consume({
      key: `livestream-url:network:${clientNetwork(ip)}`,
      ...publicLivestreamLimits.perNetwork,
      message: tooManyRequests,
    });
  }

  return {
    /**
     * Whether an embed page may be served for this id, and whether its clips carry sound (the
     * page load counts toward the network's allowance of public requests).
     */
    async embeddable(
      publicId: string,
      viewer: { ip: string },
    ): Promise<{ hasAudio: boolean } | null> {
      await limitPublicRequest(viewer.ip);
      const livestream = await repository.findByPublicId(db, publicId);
      // Recorded with audio: the player offers an unmute button (decision 046).
      return livestream ? { hasAudio: livestream.includeAudio } : null;
    },

    /**
     * The public livestream-url: the latest clip's address. A first load (not the player's
     * periodic check) counts one view per viewer, site and UK day; `site` is the website showing
     * the stream only when a browser vouched for it (page-load token or Origin), and only such a
     * site, not the portal, marks the code as seen on a website (the 10-day rule, decision 041).
     */
    async latestClipUrl(input: {
      publicId: string;
      site: string | null;
      viewer: { ip: string; fingerprint: string };
      isRefresh: boolean;
    }): Promise<{ url: string; caption: string }> {
      await limitPublicRequest(input.viewer.ip);
      const livestream = await repository.findByPublicId(db, input.publicId);
      const plan = livestream
        ? await repository.findCameraPlanByLivestream(db, livestream.id)
        : undefined;
      const now = clock.now();
      if (!livestream || !plan || !eligibilityOf(plan, now).isEligible) {
        throw notFound('This livestream is not available');
      }
      await deps.rateLimiter.consume({
        key: `livestream-url:livestream:${livestream.id}`,
        ...publicLivestreamLimits.perLivestream,
        message: tooManyRequests,
      });
      // Switched off: the website shows an offline poster, not an old clip on a loop (decision 046).
      if (!livestream.isActive && livestream.configuredAt) {
        throw new AppError('NOT_FOUND', 'This livestream is switched off.', {
          'x-livestream-state': 'off',
        });
      }
      const clip = await repository.latestPlayableClip(db, livestream.id);
      if (!clip?.storageKey) throw notFound('No clip has been recorded yet');

      const site = input.site !== null && input.site !== portalHost ? input.site : null;
      if (!input.isRefresh) {
        const day = ukWallClock(now).date;
        const host = site ?? 'direct';
        const viewerKey = createHash('sha256')
          .update(`${input.viewer.fingerprint}\n${host}`)
          .digest('base64url')
          .slice(0, 22);
        const viewsToday = await deps.rateLimiter.count(
          `livestream-view:${livestream.id}:${day}:${viewerKey}`,
          dayMs / 1000,
        );
        if (viewsToday === 1) {
          await repository.countView(db, {
            livestreamId: livestream.id,
            day,
            referrerHost: host,
            sitesPerDay: publicLivestreamLimits.sitesPerDay,
          });
        }
      }
      const hourAgo = new Date(now.getTime() - 3_600_000);
      if (site && (!livestream.lastSeenOnSiteAt || livestream.lastSeenOnSiteAt < hourAgo)) {
        await repository.markSeenOnSite(db, livestream.id, now);
      }
      return {
        url: await deps.storage.playbackUrl(clip.storageKey, playbackLifetimeSeconds),
        caption: recordedAtCaption(clip.recordedAt),
      };
    },

    /**
     * The marketing page's live demo: the latest clip of the demo camera. A clip older than an
     * hour (or none) queues a new recording; the old one plays meanwhile.
     */
    async showcase(): Promise<ShowcaseResponse> {
      const rows = await db
        .select()
        .from(appSettings)
        .where(inArray(appSettings.key, [showcaseKey, showcaseFailureKey]));
      const state = rows.find((row) => row.key === showcaseKey)?.value as
        { storageKey: string; recordedAt: string } | undefined;
      const failure = rows.find((row) => row.key === showcaseFailureKey)?.value as
        ShowcaseFailure | undefined;
      const now = clock.now();
      const isStale = !state || now.getTime() - Date.parse(state.recordedAt) > showcaseMaxAgeMs;
      // After a failed attempt the page says the demo is not available (rather than "recording"
      // for ever) and no new attempt is queued until the pause is over (decision 046).
      const hasFailedRecently =
        failure !== undefined &&
        (!state || Date.parse(failure.at) > Date.parse(state.recordedAt)) &&
        now.getTime() - Date.parse(failure.at) < showcaseRetryAfterFailureMs;
      let isRecording = false;
      if (isStale && deps.showcaseSource && !hasFailedRecently) {
        try {
          await deps.recordingQueue.enqueue(
            { kind: 'showcase' },
            { singletonKey: 'showcase', singletonSeconds: 120 },
          );
          isRecording = true;
        } catch (error) {
          deps.log.warn({ err: error }, 'Could not queue the demo clip');
        }
      }
      if (!state) return { url: null, recordedAt: null, isRecording };
      return {
        url: await deps.storage.playbackUrl(state.storageKey, playbackLifetimeSeconds),
        recordedAt: state.recordedAt,
        isRecording,
      };
    },

    /** Whether the demo camera can run here, so the pages can say so (docs/decisions/060). */
    async demoCamera(): Promise<DemoCameraResponse> {
      if (!deps.demoCamera) return { problem: null, packages: [] };
      const { problem, packages } = await deps.demoCamera.check();
      return { problem, packages };
    },
  };
}
