/**
 * Live view, the API's side (issue 27, decisions 151-156): whether a camera can be watched and
 * why not, joining the camera's one shared pull, viewers' heartbeats and "Still watching?", the
 * playlist served from storage, and the owner's switch per camera. The pulling itself is the
 * workers' (live-view-puller.service.ts); both meet in the database.
 */
import { randomBytes } from 'node:crypto';
import {
  liveViewTimings,
  type LiveViewCamerasResponse,
  type LiveViewHeartbeatResponse,
  type LiveViewStatusResponse,
  type StartLiveViewResponse,
} from '@farmcam/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import { AppError, notFound } from '../../errors.ts';
import { auditActorOf, writeAudit, type AuditActor } from '../../lib/audit.ts';
import { businessDay, businessDayStart, isoMonth } from '../../lib/business-calendar.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { aliveSince } from '../../lib/instance.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import { withinCameras, type Access } from '../auth/access.ts';
import { closeViewersAndLog } from './live-view-viewers.ts';
import {
  liveViewRepository as repository,
  type LiveViewCameraFacts,
  type LiveViewSessionRow,
} from './live-view.repository.ts';
import { allowanceOf, hoursOfPlan, liveViewRefusal } from './live-view.rules.ts';
import { segmentKey } from './live-view-storage.ts';

/** The session's principal, as much as live view needs of it. */
export interface LiveViewPrincipal {
  customerId: string | null;
  customerEmail: string | null;
  staffId: string | null;
  staffEmail: string | null;
  access: Access | null;
}

export interface LiveViewServiceDependencies {
  db: Database;
  clock: Clock;
  /** Wall-clock time for whether workers are alive; the system clock unless a test injects one. */
  processClock?: Clock;
  storage: ClipStorage;
  /** LIVE_VIEW_CAMERAS_PER_WORKER: open pulls allowed per live worker; 0 offers none. */
  camerasPerWorker: number;
  /** Called when a new pull is asked for: a puller in this process starts it at once. */
  onPullRequested?: () => void;
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
}

export const liveViewMessages = {
  notOffered: 'Live view is not offered on this service.',
  noWorker: 'Live view is not available right now. Please try again in a few minutes.',
  full: 'Live view is busy: every place for a live camera is taken just now. Please try again in a few minutes.',
  ended: 'This live view has ended.',
  noPicture:
    'The camera sent no picture within 30 seconds. Check that it is switched on and has mobile signal, then try again.',
  settingOwnerOnly:
    'Only the account owner can turn live view on or off: it spends the plan’s data.',
} as const;

/** A view still without a picture this long after the ask has failed (decision 153). */
export const startTimeoutSeconds = 30;

export type LiveViewService = ReturnType<typeof createLiveViewService>;

export function createLiveViewService(deps: LiveViewServiceDependencies) {
  const { db, clock } = deps;
  const processClock = deps.processClock ?? systemClock;

  async function factsOf(customerId: string, iccid: string): Promise<LiveViewCameraFacts> {
    const now = clock.now();
    const today = businessDay(now);
    const facts = await repository.cameraFacts(db, {
      iccid,
      customerId,
      capMonth: today.slice(0, 7),
      usageMonth: `${isoMonth(now)}-01`,
      hoursFrom: businessDayStart(`${today.slice(0, 7)}-01`),
      now,
    });
    if (!facts) throw notFound('Camera not found');
    return facts;
  }

  async function refusalOf(facts: LiveViewCameraFacts, access: Access) {
    return liveViewRefusal(facts, {
      today: businessDay(clock.now()),
      plansWithHours: await repository.plansWithHours(db),
      isOwner: access.role === 'owner',
    });
  }

  /** The still's signed address (an hour at least), its time and where it came from. */
  async function stillOf(row: {
    still_key: string | null;
    still_taken_at: Date | string | null;
    still_source: 'clip' | 'live' | 'timelapse' | null;
  }) {
    if (!row.still_key || !row.still_taken_at || !row.still_source) return null;
    return {
      url: await deps.storage.playbackUrl(row.still_key, 3600),
      takenAt: new Date(row.still_taken_at).toISOString(),
      source: row.still_source,
    };
  }

  async function viewersNow(session: LiveViewSessionRow | undefined): Promise<number> {
    if (!session) return 0;
    const seenSince = new Date(clock.now().getTime() - liveViewTimings.viewerGoneSeconds * 1000);
    return repository.countWatching(db, session.id, seenSince);
  }

  /** Room for one more pull: LIVE_VIEW_CAMERAS_PER_WORKER on each live worker (decision 153). */
  async function requireRoomForPull(): Promise<void> {
    if (deps.camerasPerWorker === 0)
      throw new AppError('PROVIDER_UNAVAILABLE', liveViewMessages.notOffered);
    const workers = await repository.countLiveWorkers(db, aliveSince(processClock.now()));
    if (workers === 0) throw new AppError('PROVIDER_UNAVAILABLE', liveViewMessages.noWorker);
    const open = await repository.countOpenSessions(db);
    if (open >= workers * deps.camerasPerWorker) {
      throw new AppError('PROVIDER_UNAVAILABLE', liveViewMessages.full, { 'retry-after': '120' });
    }
  }

  return {
    /** For the dashboard: which cards offer Watch live, and each camera's latest still. */
    async listCameras(customerId: string, access: Access): Promise<LiveViewCamerasResponse> {
      const rows = withinCameras(
        access,
        await repository.listCameras(db, customerId),
        (row) => row.iccid,
      );
      const cameras = [];
      for (const row of rows) {
        cameras.push({
          iccid: row.iccid,
          hasLiveView: hoursOfPlan(row.hours_metadata) !== null,
          still:
            row.still_key && row.still_taken_at && row.still_source
              ? {
                  url: await deps.storage.playbackUrl(row.still_key, 3600),
                  takenAt: new Date(row.still_taken_at).toISOString(),
                  source: row.still_source,
                }
              : null,
        });
      }
      return { cameras };
    },

    /** Whether this person can watch the camera now, why not, and the month's Hours and data. */
    async status(
      customerId: string,
      access: Access,
      iccid: string,
    ): Promise<LiveViewStatusResponse> {
      const facts = await factsOf(customerId, iccid);
      const refusal = await refusalOf(facts, access);
      return {
        iccid,
        canWatch: refusal === null,
        reason: refusal?.reason ?? null,
        action: refusal?.action ?? null,
        isEnabled: facts.is_enabled,
        canChangeSetting: access.role === 'owner',
        viewersNow: await viewersNow(await repository.openSession(db, iccid)),
        allowance: allowanceOf(facts),
        still: await stillOf(facts),
      };
    },

    /**
     * Joins the camera's pull, asking a worker for one if none runs (decision 152). Refused with
     * the reason (409) when the camera cannot be watched, 503 when no worker has room.
     */
    async start(
      customerId: string,
      principal: LiveViewPrincipal,
      iccid: string,
    ): Promise<StartLiveViewResponse> {
      const access = principal.access!;
      const facts = await factsOf(customerId, iccid);
      const refusal = await refusalOf(facts, access);
      if (refusal) throw new AppError('CONFLICT', refusal.reason);
      const now = clock.now();
      let session = await repository.openSession(db, iccid);
      if (!session) {
        await requireRoomForPull();
        const ensured = await repository.ensureOpenSession(db, { iccid, customerId, now });
        session = ensured.session;
        if (ensured.isNew) deps.onPullRequested?.();
      }
      const playToken = randomBytes(24).toString('base64url');
      const actor: AuditActor = auditActorOf({ ...principal, access });
      const viewer = await repository.insertViewer(db, {
        sessionId: session.id,
        customerId,
        simIccid: iccid,
        actor: { ...actor },
        playToken,
        joinedAt: now,
        lastSeenAt: now,
        confirmedAt: now,
        bytesAtJoin: session.bytesPulled,
      });
      deps.log.info({ iccid, sessionId: session.id, viewerId: viewer.id }, 'Live view joined');
      return {
        viewerId: viewer.id,
        playlistUrl: `/api/live-view/play/${playToken}/index.m3u8`,
        heartbeatSeconds: liveViewTimings.heartbeatSeconds,
        stillWatchingAfterSeconds: liveViewTimings.stillWatchingAfterSeconds,
      };
    },

    /** A viewer is still there (and, with `stillWatching`, said yes to "Still watching?"). */
    async heartbeat(
      customerId: string,
      access: Access,
      iccid: string,
      viewerId: string,
      stillWatching: boolean,
    ): Promise<LiveViewHeartbeatResponse> {
      // The camera first: another customer's is 'Camera not found', as everywhere.
      const facts = await factsOf(customerId, iccid);
      const viewer = await repository.findViewer(db, { viewerId, iccid, customerId });
      if (!viewer) throw notFound(liveViewMessages.ended);
      const session = await repository.findSession(db, viewer.sessionId);
      if (!session) throw notFound(liveViewMessages.ended);
      const now = clock.now();
      let state = session.status;
      let reason = session.endReason;
      if (viewer.leftAt === null && (state === 'starting' || state === 'live')) {
        // A camera that may no longer be watched (switched off, data paused, Hours used up)
        // stops for everyone: the pull ends and each player says why.
        const refusal = await refusalOf(facts, access);
        // No picture long after the ask: no worker took it, or the camera never answered.
        const isStuck =
          state === 'starting' &&
          now.getTime() - session.requestedAt.getTime() > startTimeoutSeconds * 1000;
        if (refusal || isStuck) {
          const why = refusal?.reason ?? liveViewMessages.noPicture;
          await repository.endSession(db, {
            sessionId: session.id,
            status: refusal ? 'ended' : 'failed',
            reason: why,
            now,
          });
          await closeViewersAndLog(db, clock);
          state = refusal ? 'ended' : 'failed';
          reason = why;
        } else {
          await repository.touchViewer(db, viewerId, {
            lastSeenAt: now,
            ...(stillWatching ? { confirmedAt: now } : {}),
          });
        }
      } else if (viewer.leftAt !== null && state !== 'failed') {
        state = 'ended';
        reason ??= 'You stopped watching, or the view waited too long for an answer.';
      }
      const confirmedAt = stillWatching ? now : viewer.confirmedAt;
      const bytesNow = viewer.bytesAtLeave ?? session.bytesPulled;
      return {
        state,
        reason,
        viewersNow: await viewersNow(
          session.status === 'starting' || session.status === 'live' ? session : undefined,
        ),
        bytesThisView: Math.max(0, bytesNow - viewer.bytesAtJoin),
        secondsThisView: Math.max(
          0,
          Math.round(((viewer.leftAt ?? now).getTime() - viewer.joinedAt.getTime()) / 1000),
        ),
        isStillWatchingDue:
          state === 'live' || state === 'starting'
            ? now.getTime() - confirmedAt.getTime() >=
              liveViewTimings.stillWatchingAfterSeconds * 1000
            : false,
        allowance: allowanceOf(facts),
      };
    },

    /** The viewer left: written on the Activity log now; the pull stops if nobody else watches. */
    async leave(customerId: string, iccid: string, viewerId: string): Promise<void> {
      await factsOf(customerId, iccid);
      const viewer = await repository.findViewer(db, { viewerId, iccid, customerId });
      if (!viewer) throw notFound(liveViewMessages.ended);
      await closeViewersAndLog(db, clock, viewerId);
      const session = await repository.findSession(db, viewer.sessionId);
      if (session && (session.status === 'starting' || session.status === 'live')) {
        if ((await viewersNow(session)) === 0) {
          await repository.endSession(db, {
            sessionId: session.id,
            status: 'ended',
            reason: 'Nobody is watching any more.',
            now: clock.now(),
          });
        }
      }
    },

    /**
     * The HLS playlist of the viewer's session, each file's name swapped for a signed storage
     * address (files here, the bucket with S3). The play token is the viewer's own secret.
     */
    async playlist(playToken: string): Promise<string> {
      const found = await repository.findViewerByToken(db, playToken);
      if (!found || found.viewer.leftAt !== null) throw notFound(liveViewMessages.ended);
      const { session } = found;
      if (session.status !== 'live' || !session.playlist) {
        throw notFound(
          session.status === 'starting' ? 'The live view is starting.' : liveViewMessages.ended,
        );
      }
      const lines: string[] = [];
      for (const line of session.playlist.split('\n')) {
        const map = /^(#EXT-X-MAP:.*URI=")([^"]+)(".*)$/.exec(line);
        if (map) {
          const url = await deps.storage.playbackUrl(segmentKey(session, map[2]!), 120);
          lines.push(`${map[1]}${url}${map[3]}`);
        } else if (line.trim() !== '' && !line.startsWith('#')) {
          lines.push(await deps.storage.playbackUrl(segmentKey(session, line.trim()), 120));
        } else {
          lines.push(line);
        }
      }
      return lines.join('\n');
    },

    /** The owner's switch (decision 154); turning it off stops a view under way at once. */
    async setEnabled(
      customerId: string,
      principal: LiveViewPrincipal,
      iccid: string,
      isEnabled: boolean,
    ) {
      const access = principal.access!;
      if (access.role !== 'owner')
        throw new AppError('FORBIDDEN', liveViewMessages.settingOwnerOnly);
      const facts = await factsOf(customerId, iccid);
      const now = clock.now();
      await db.transaction(async (transaction) => {
        await repository.setEnabled(transaction, iccid, isEnabled, now);
        if (facts.is_enabled !== isEnabled) {
          await writeAudit(transaction, {
            ...auditActorOf({ ...principal, access }),
            action: isEnabled ? 'live-view.turned-on' : 'live-view.turned-off',
            subjectType: 'sim',
            subjectId: iccid,
            details: { camera: facts.nickname },
          });
        }
      });
      if (!isEnabled) {
        const session = await repository.openSession(db, iccid);
        if (session) {
          await repository.endSession(db, {
            sessionId: session.id,
            status: 'ended',
            reason: 'The account owner turned live view off for this camera.',
            now,
          });
          await closeViewersAndLog(db, clock);
        }
      }
      return { isEnabled };
    },
  };
}
