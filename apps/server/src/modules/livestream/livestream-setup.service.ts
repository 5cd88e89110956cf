/**
 * Setting a camera up for livestreaming (docs/requirements.md#livestream-setup): opening its RTSP
 * port to our recorders, the 5-second preview and where a clip stands, and saving the recording
 * settings and schedule. Every call checks ownership (404) and eligibility (422) on the server.
 */
import { randomBytes } from 'node:crypto';
import type { ClipStatusResponse, RtspPath } from '@farmcam/contract';
import { livestreamRtspPort } from '@farmcam/contract';
import { AppError, notFound } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import { requireOwnedSim } from '../ownership/ownership.ts';
import {
  auditActor,
  changeLivestream,
  requireEligibleCamera,
  requireLivestream,
  type ClipRow,
  type CustomerScope,
  type LivestreamServiceDependencies,
} from './livestream-access.ts';
import { livestreamSummary, qualityOfPath } from './livestream-summary.ts';
import { livestreamRepository as repository } from './livestream.repository.ts';
import { playbackLifetimeSeconds } from './livestream.service.ts';
import { formatSchedule, parseSchedule } from './schedule.ts';

export type LivestreamSetupDependencies = Pick<
  LivestreamServiceDependencies,
  'db' | 'clock' | 'rateLimiter' | 'storage' | 'cameraAccess' | 'clips' | 'publicUrl'
>;

export const newPublicId = () => `ls_${randomBytes(16).toString('base64url')}`;

/**
 * What the farmer is told of a clip: one whose file waits on our machine for storage is not
 * there yet, so it is still "recording" to them (decision 105).
 */
function shownStatus(status: ClipRow['status']): Exclude<ClipRow['status'], 'uploading'> {
  return status === 'uploading' ? 'recording' : status;
}

export function createLivestreamSetupService(deps: LivestreamSetupDependencies) {
  const { db, clock } = deps;

  return {
    /**
     * Opens the camera's RTSP port to our recorders (through the SIM platform) and creates its
     * livestream with an unguessable public id; repeating it refreshes the camera's address.
     */
    async setupCamera(scope: CustomerScope, input: { iccid: string; ports: number[] }) {
      await requireEligibleCamera(deps, scope.customerId, input.iccid);
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
      await requireEligibleCamera(deps, scope.customerId, input.iccid);
      const schedule = parseSchedule(input.schedule);
      const livestream = await requireLivestream(db, input.iccid);
      const now = clock.now();
      const isSwitchingOn = input.isActive && !livestream.isActive;
      const updated = await changeLivestream(
        db,
        scope,
        livestream,
        {
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
        },
        {
          action: 'livestream.configure',
          details: {
            schedule: formatSchedule(schedule),
            rtspPath: input.rtspPath,
            durationSeconds: input.durationSeconds,
            includeAudio: input.includeAudio,
            isActive: input.isActive,
          },
        },
      );
      return {
        success: true as const,
        message: input.isActive ? 'Livestream schedule saved' : 'Livestream schedule saved (off)',
        data: await livestreamSummary(deps, updated),
      };
    },

    /** Records a clip now (the setup's 5-second preview, or a first clip right after setup). */
    async recordNow(
      scope: CustomerScope,
      input: { iccid: string; rtspPath: RtspPath; durationSeconds: number; includeAudio: boolean },
    ) {
      await requireEligibleCamera(deps, scope.customerId, input.iccid);
      const livestream = await requireLivestream(db, input.iccid);
      // Every recording uses the camera's mobile data: a bound on how often one can be asked for.
      await deps.rateLimiter.consume({
        key: `livestream:record-now:${input.iccid}`,
        limit: 20,
        windowSeconds: 3600,
        message: 'Too many recordings asked for this camera. Please try again later.',
      });
      const clip = await deps.clips.requestClip(livestream.id, input);
      return {
        success: true as const,
        message: 'Recording started',
        data: { s3_key: clip.storageKey!, clip_id: clip.id, status: shownStatus(clip.status) },
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
        ? await deps.clips.findClip(livestream.id, input.storageKey)
        : undefined;
      if (!clip) throw notFound('No such clip');
      return {
        status: shownStatus(clip.status),
        url:
          clip.status === 'ready' && clip.storageKey
            ? await deps.storage.playbackUrl(clip.storageKey, playbackLifetimeSeconds)
            : null,
        error: clip.error,
        recordedAt: clip.recordedAt.toISOString(),
      };
    },
  };
}

export type LivestreamSetupService = ReturnType<typeof createLivestreamSetupService>;
