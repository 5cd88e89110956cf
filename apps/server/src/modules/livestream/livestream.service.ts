/**
 * Livestreaming for customers (docs/requirements.md#livestream-setup, #livestream-flow, #api calls): the
 * cameras that qualify, opening a camera's RTSP port, the recording schedule, recordings on
 * request, sharing the embed code; and for everyone, the public address of a stream's latest
 * clip. Every customer call checks ownership (404) and eligibility (422) on the server.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type {
  ClipStatusResponse,
  DemoCameraResponse,
  LivestreamCamera,
  LivestreamCamerasResponse,
  LivestreamSummary,
  RtspPath,
  ShowcaseResponse,
} from '@farmcam/contract';
import {
  livestreamRtspPort,
  previewDurationSeconds,
  rtspPathByQuality,
  unusedLivestreamDays,
} from '@farmcam/contract';
import type { FastifyBaseLogger } from 'fastify';
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { appSettings, customers } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import { isoDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { clientNetwork } from '../../lib/client-address.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import { renderEmail, type Mailer } from '../../providers/mail/mail.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import type { LocalCamera } from '../../providers/camera/local-camera.ts';
import type { Principal } from '../auth/auth.service.ts';
import { requireOwnedSim } from '../ownership/ownership.ts';
import { buildEmbedCode, embedPageUrl } from './embed.ts';
import { eligibilityOf } from './eligibility.ts';
import {
  livestreamRepository as repository,
  type CameraPlanRow,
  type ClipStatsRow,
  type LivestreamRow,
} from './livestream.repository.ts';
import {
  showcaseFailureKey,
  type CameraPortOpener,
  type RecordingQueue,
  type ShowcaseFailure,
} from './recording.service.ts';
import {
  formatSchedule,
  nextRecordingAfter,
  slotKeyAt,
  parseSchedule,
  toSchedule,
  ukWallClock,
} from './schedule.ts';

export interface LivestreamServiceDependencies {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  rateLimiter: RateLimiter;
  storage: ClipStorage;
  cameraAccess: CameraPortOpener;
  recordingQueue: RecordingQueue;
  publicUrl: string;
  supportEmail: string;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** Where the marketing page's live demo is recorded from, if anywhere. */
  showcaseSource?: () => Promise<string>;
  /** The local demo camera, when this process runs one (local mode). */
  demoCamera?: Pick<LocalCamera, 'check'>;
}

export interface CustomerScope {
  customerId: string;
  principal: Principal;
  ip: string;
}

/** Signed clip addresses handed out live at least this long (the embed renews after 30 min). */
export const playbackLifetimeSeconds = 2 * 3600;
const viewsDays = 14;
const failureWindowDays = 7;
const dayMs = 86_400_000;
const showcaseKey = 'livestream-showcase';
const showcaseMaxAgeMs = 3_600_000;
/** After a failed demo recording, the next attempt waits this long. */
export const showcaseRetryAfterFailureMs = 10 * 60_000;

export const newPublicId = () => `ls_${randomBytes(16).toString('base64url')}`;

export const qualityOfPath = (rtspPath: string): 'SD' | 'HD' =>
  rtspPath === rtspPathByQuality.HD ? 'HD' : 'SD';

const auditActor = (scope: CustomerScope) => ({
  actorType: scope.principal.staffId ? ('staff' as const) : ('customer' as const),
  actorId: scope.principal.staffId ?? scope.customerId,
  onBehalfOfCustomerId: scope.principal.staffId ? scope.customerId : null,
  ip: scope.ip,
});

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

export type LivestreamService = ReturnType<typeof createLivestreamService>;

export function createLivestreamService(deps: LivestreamServiceDependencies) {
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

  /** The caller's camera (404 when not theirs), eligible for livestreaming (422 when not). */
  async function requireEligibleCamera(customerId: string, iccid: string): Promise<CameraPlanRow> {
    await requireOwnedSim(db, customerId, iccid);
    const plan = await repository.findCameraPlan(db, iccid);
    if (!plan) throw notFound('Camera not found');
    const eligibility = eligibilityOf(plan, clock.now());
    if (!eligibility.isEligible) throw new AppError('UNPROCESSABLE', eligibility.reason);
    return plan;
  }

  async function requireLivestream(iccid: string): Promise<LivestreamRow> {
    const livestream = await repository.findBySim(db, iccid);
    if (!livestream) {
      throw new AppError('CONFLICT', 'Set up the camera for livestreaming first');
    }
    return livestream;
  }

  function summarize(
    row: LivestreamRow,
    stats: ClipStatsRow | undefined,
    views: Map<string, number>,
    now: Date,
  ): LivestreamSummary {
    const schedule = toSchedule(row.scheduleHours, row.scheduleDays);
    const graceStart =
      row.lastSeenOnSiteAt && row.activatedAt && row.lastSeenOnSiteAt > row.activatedAt
        ? row.lastSeenOnSiteAt
        : row.activatedAt;
    const today = ukWallClock(now).date;
    const viewsByDay = Array.from({ length: viewsDays }, (_, index) => {
      const day = isoDay(
        new Date(Date.parse(`${today}T12:00:00Z`) - (viewsDays - 1 - index) * dayMs),
      );
      return { day, views: views.get(day) ?? 0 };
    });
    const toIso = (value: Date | string | null | undefined) =>
      value ? new Date(value).toISOString() : null;
    return {
      publicId: row.publicId,
      embedCode: buildEmbedCode(deps.publicUrl, row.publicId),
      embedUrl: embedPageUrl(deps.publicUrl, row.publicId),
      quality: qualityOfPath(row.rtspPath),
      durationSeconds: row.durationSeconds,
      includeAudio: row.includeAudio,
      scheduleHours: schedule.hours,
      scheduleDays: schedule.days,
      schedule: formatSchedule(schedule),
      isActive: row.isActive,
      disabledReason: row.disabledReason,
      isConfigured: row.configuredAt !== null,
      latestClipAt: toIso(stats?.latest_clip_at),
      nextRecordingAt: row.isActive
        ? toIso(nextRecordingAfter(schedule, now, stats?.has_current_slot ?? false))
        : null,
      recordingFailures: Number(stats?.failures ?? 0),
      lastFailure:
        stats?.last_failure_at && stats.last_failure_error
          ? { at: toIso(stats.last_failure_at)!, error: stats.last_failure_error }
          : null,
      lastSeenOnSiteAt: toIso(row.lastSeenOnSiteAt),
      switchOffAt:
        row.isActive && graceStart
          ? new Date(graceStart.getTime() + unusedLivestreamDays * dayMs).toISOString()
          : null,
      viewsByDay,
    };
  }

  async function summaries(rows: LivestreamRow[]): Promise<Map<string, LivestreamSummary>> {
    const now = clock.now();
    const ids = rows.map((row) => row.id);
    const [stats, views] = await Promise.all([
      repository.clipStats(
        db,
        ids,
        new Date(now.getTime() - failureWindowDays * dayMs),
        slotKeyAt(now),
      ),
      repository.viewsByDay(db, ids, isoDay(new Date(now.getTime() - (viewsDays + 1) * dayMs))),
    ]);
    const result = new Map<string, LivestreamSummary>();
    for (const row of rows) {
      const rowViews = new Map(
        views
          .filter((view) => view.livestream_id === row.id)
          .map((view) => [view.day, Number(view.views)]),
      );
      result.set(
        row.id,
        summarize(
          row,
          stats.find((stat) => stat.livestream_id === row.id),
          rowViews,
          now,
        ),
      );
    }
    return result;
  }

  async function summaryOf(row: LivestreamRow): Promise<LivestreamSummary> {
    return (await summaries([row])).get(row.id)!;
  }

  /** Queues a recording now; returns its clip (status 'recording' until the worker is done). */
  async function startImmediateRecording(
    livestream: LivestreamRow,
    request: { rtspPath: RtspPath; durationSeconds: number; includeAudio: boolean },
  ) {
    const clipId = randomUUID();
    const kind = request.durationSeconds === previewDurationSeconds ? 'preview' : 'now';
    const storageKey = `livestreams/${livestream.id}/${kind}-${clock.now().toISOString().replace(/[:.]/g, '-')}-${clipId.slice(0, 8)}.mp4`;
    const clip = await repository.insertClip(db, {
      livestreamId: livestream.id,
      slot: `${kind}:${clipId}`,
      durationSeconds: request.durationSeconds,
      storageKey,
      now: clock.now(),
    });
    // If the queue refuses, the clip says so rather than staying 'recording' for ever.
    try {
      await deps.recordingQueue.enqueue({
        kind: 'immediate',
        clipId: clip.id,
        rtspPath: request.rtspPath,
        includeAudio: request.includeAudio,
      });
    } catch (error) {
      await repository.finishClip(db, clip.id, {
        status: 'failed',
        error: 'The recording could not be queued',
      });
      throw error;
    }
    return clip;
  }

  return {
    requireEligibleCamera,

    /** The customer's cameras that may livestream, each with its livestream if set up. */
    async listCameras(customerId: string): Promise<LivestreamCamerasResponse> {
      const now = clock.now();
      const plans = (await repository.listCameraPlans(db, customerId)).filter(
        (plan) => eligibilityOf(plan, now).isEligible,
      );
      const livestreamIds = plans.flatMap((plan) =>
        plan.livestream_id ? [plan.livestream_id] : [],
      );
      const rows = await repository.listByIds(db, livestreamIds);
      const bySummary = await summaries(rows);
      const cameras: LivestreamCamera[] = plans.map((plan) => {
        const row = rows.find((candidate) => candidate.simIccid === plan.iccid);
        return {
          SIM_ICCID: plan.iccid,
          nicknameInDatabase: plan.nickname,
          SubStatus: 'active',
          stripeSubscription: { productName: plan.product_name ?? '' },
          dataAllowanceGb: Number(plan.data_allowance_gb ?? 0),
          livestream: row ? (bySummary.get(row.id) ?? null) : null,
        };
      });
      return { cameras, supportEmail: deps.supportEmail };
    },

    /**
     * Opens the camera's RTSP port to our recorders (through the SIM platform) and creates its
     * livestream with an unguessable public id; repeating it refreshes the camera's address.
     */
    async setupCamera(scope: CustomerScope, input: { iccid: string; ports: number[] }) {
      await requireEligibleCamera(scope.customerId, input.iccid);
      const access = await deps.cameraAccess.openCameraPorts(input.iccid, input.ports);
      const reachablePort = access.ports[livestreamRtspPort];
      if (!reachablePort) {
        throw new AppError('PROVIDER_UNAVAILABLE', 'The SIM platform did not open the RTSP port');
      }
      const now = clock.now();
      const { row, isNew } = await db.transaction(async (transaction) => {
        const result = await repository.ensureForSim(transaction, {
          iccid: input.iccid,
          publicId: newPublicId(),
          cameraHost: access.host,
          cameraPort: reachablePort,
          now,
        });
        await writeAudit(transaction, {
          ...auditActor(scope),
          action: 'livestream.setup-camera',
          subjectType: 'sim',
          subjectId: input.iccid,
          details: { ports: input.ports, isNew: result.isNew },
        });
        return result;
      });
      return {
        success: true as const,
        message: isNew ? 'Camera set up for livestreaming' : 'Camera connection refreshed',
        data: { camera_id: input.iccid, public_id: row.publicId },
      };
    },

    /** Saves the recording settings and schedule; switching on restarts the 10-day grace. */
    async configure(
      scope: CustomerScope,
      input: {
        iccid: string;
        rtspPath: RtspPath;
        durationSeconds: number;
        includeAudio: boolean;
        isActive: boolean;
        schedule: string;
      },
    ) {
      await requireEligibleCamera(scope.customerId, input.iccid);
      const schedule = parseSchedule(input.schedule);
      const livestream = await requireLivestream(input.iccid);
      const now = clock.now();
      const isSwitchingOn = input.isActive && !livestream.isActive;
      const updated = await db.transaction(async (transaction) => {
        const row = await repository.update(transaction, livestream.id, {
          rtspPort: livestreamRtspPort,
          rtspPath: input.rtspPath,
          quality: qualityOfPath(input.rtspPath),
          durationSeconds: input.durationSeconds,
          includeAudio: input.includeAudio,
          scheduleHours: schedule.hours,
          scheduleDays: schedule.days,
          isActive: input.isActive,
          configuredAt: livestream.configuredAt ?? now,
          ...(isSwitchingOn ? { activatedAt: now, disabledReason: null } : {}),
          ...(!input.isActive ? { disabledReason: null } : {}),
          updatedAt: now,
        });
        await writeAudit(transaction, {
          ...auditActor(scope),
          action: 'livestream.configure',
          subjectType: 'sim',
          subjectId: input.iccid,
          details: {
            schedule: formatSchedule(schedule),
            rtspPath: input.rtspPath,
            durationSeconds: input.durationSeconds,
            includeAudio: input.includeAudio,
            isActive: input.isActive,
          },
        });
        return row;
      });
      return {
        success: true as const,
        message: input.isActive ? 'Livestream schedule saved' : 'Livestream schedule saved (off)',
        data: await summaryOf(updated),
      };
    },

    /** Switches a configured schedule on or off without changing it. */
    async setActive(scope: CustomerScope, input: { iccid: string; isActive: boolean }) {
      await requireEligibleCamera(scope.customerId, input.iccid);
      const livestream = await requireLivestream(input.iccid);
      if (!livestream.configuredAt) {
        throw new AppError('CONFLICT', 'Choose a schedule for this livestream first');
      }
      const now = clock.now();
      const updated = await db.transaction(async (transaction) => {
        const row = await repository.update(transaction, livestream.id, {
          isActive: input.isActive,
          disabledReason: null,
          ...(input.isActive && !livestream.isActive ? { activatedAt: now } : {}),
          updatedAt: now,
        });
        await writeAudit(transaction, {
          ...auditActor(scope),
          action: input.isActive ? 'livestream.switch-on' : 'livestream.switch-off',
          subjectType: 'sim',
          subjectId: input.iccid,
        });
        return row;
      });
      return {
        success: true as const,
        message: input.isActive ? 'Livestream switched on' : 'Livestream switched off',
        data: await summaryOf(updated),
      };
    },

    /** Records a clip now (the setup's 5-second preview, or a first clip right after setup). */
    async recordNow(
      scope: CustomerScope,
      input: { iccid: string; rtspPath: RtspPath; durationSeconds: number; includeAudio: boolean },
    ) {
      await requireEligibleCamera(scope.customerId, input.iccid);
      const livestream = await requireLivestream(input.iccid);
      // Every recording uses the camera's mobile data: a bound on how often one can be asked for.
      await deps.rateLimiter.consume({
        key: `livestream:record-now:${input.iccid}`,
        limit: 20,
        windowSeconds: 3600,
        message: 'Too many recordings asked for this camera. Please try again later.',
      });
      const clip = await startImmediateRecording(livestream, input);
      return {
        success: true as const,
        message: 'Recording started',
        data: { s3_key: clip.storageKey!, clip_id: clip.id, status: clip.status },
      };
    },

    /** Where a clip of the caller's camera stands, with a playable address once it is ready. */
    async clipStatus(
      customerId: string,
      input: { iccid: string; storageKey: string },
    ): Promise<ClipStatusResponse> {
      await requireOwnedSim(db, customerId, input.iccid);
      const livestream = await repository.findBySim(db, input.iccid);
      const clip = livestream
        ? await repository.findClipByKey(db, livestream.id, input.storageKey)
        : undefined;
      if (!clip) throw notFound('No such clip');
      return {
        status: clip.status,
        url:
          clip.status === 'ready' && clip.storageKey
            ? await deps.storage.playbackUrl(clip.storageKey, playbackLifetimeSeconds)
            : null,
        error: clip.error,
        recordedAt: clip.recordedAt.toISOString(),
      };
    },

    /**
     * E-mails the embed code to someone (typically the website manager). The e-mail carries the
     * server's own code for the camera, never HTML from the request, so this cannot be used to
     * send arbitrary content from our address.
     */
    async shareCode(scope: CustomerScope, input: { iccid: string; emailAddress: string }) {
      const plan = await requireEligibleCamera(scope.customerId, input.iccid);
      const livestream = await requireLivestream(input.iccid);
      const recipient = input.emailAddress.trim().toLowerCase();
      await deps.rateLimiter.consumeAll([
        {
          key: `livestream:share:customer:${scope.customerId}`,
          limit: 10,
          windowSeconds: 3600,
          message: 'Too many shares in the last hour. Please try again later.',
        },
        {
          key: `livestream:share:recipient:${recipient}`,
          limit: 5,
          windowSeconds: 86_400,
          message: 'This address has been sent the code several times today already.',
        },
      ]);
      const code = buildEmbedCode(deps.publicUrl, livestream.publicId);
      const cameraName = plan.nickname ?? 'farm camera';
      // The recipient learns who sent it (the farm's name and address), and replies go to them.
      const [sender] = await db
        .select({ email: customers.email, name: customers.name })
        .from(customers)
        .where(eq(customers.id, scope.customerId));
      const senderName = sender?.name?.trim()
        ? `${sender.name.trim()} (${sender.email})`
        : (sender?.email ?? 'A Farmcam customer');
      await deps.mailer.send(
        renderEmail({
          to: recipient,
          ...(sender ? { replyTo: sender.email } : {}),
          subject: `Livestream code for the ${cameraName} camera, from ${sender?.name?.trim() || sender?.email || 'a Farmcam customer'}`,
          heading: 'Add the farm livestream to your website',
          paragraphs: [
            `${senderName} has sent you the code that shows a livestream of their "${cameraName}" camera on a website. Reply to this e-mail to answer them.`,
            'Paste this code into the page where the video should appear (in an HTML or "embed" block):',
            code,
            'The video plays the latest recording on a loop and updates itself. If the code has not been on a website within 10 days, the recording schedule is switched off.',
            `Questions? Write to ${deps.supportEmail}.`,
          ],
          action: {
            label: 'Preview the livestream',
            url: embedPageUrl(deps.publicUrl, livestream.publicId),
          },
        }),
      );
      await writeAudit(db, {
        ...auditActor(scope),
        action: 'livestream.share-code',
        subjectType: 'sim',
        subjectId: input.iccid,
        details: { recipient },
      });
      return { success: true as const, message: 'Livestream code shared successfully!' };
    },

    /**
     * The public answer of livestream-url: the latest clip's playable address. Counts the view per
     * UK day and referring site, and notes that the code is on a website (docs/requirements.md#limits: 10 days).
     */
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
