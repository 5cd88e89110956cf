/**
 * What every part of the livestream service shares: its dependencies, the customer a call is
 * made for (and how the audit log names them), and the checks every customer call starts with:
 * the camera is theirs (404) and may livestream (422), and its livestream is set up (409).
 */
import type { RtspPath } from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import type { clips } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { auditActorOf, writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import type { RateLimiter } from '../../lib/rate-limiter.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import type { Mailer } from '../../providers/mail/mail.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import type { Principal } from '../auth/principal.ts';
import { requireOwnedSim } from '../ownership/ownership.ts';
import { eligibilityOf } from './eligibility.ts';
import {
  livestreamRepository as repository,
  type CameraPlanRow,
  type LivestreamRow,
} from './livestream.repository.ts';

/** Opens a SIM's camera ports to our recorders: the connectivity port's capability. */
export type CameraPortOpener = Pick<ConnectivityPlatform, 'openCameraPorts'>;

export type ClipRow = typeof clips.$inferSelect;

/**
 * What set-up asks of recording: a clip recorded now, and where a clip stands. Recording is built
 * on this module (decision 163), so the composition root hands its part in
 * (modules/recording/clip-requests.service.ts).
 */
export interface ClipRequests {
  /** Queues a recording now; its clip, 'recording' until a worker is done with it. */
  requestClip(
    livestreamId: string,
    request: { rtspPath: RtspPath; durationSeconds: number; includeAudio: boolean },
  ): Promise<ClipRow>;
  /** The livestream's clip stored under this key. */
  findClip(livestreamId: string, storageKey: string): Promise<ClipRow | undefined>;
}

export interface LivestreamServiceDependencies {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  rateLimiter: RateLimiter;
  storage: ClipStorage;
  cameraAccess: CameraPortOpener;
  clips: ClipRequests;
  publicUrl: string;
  supportEmail: string;
}

export interface CustomerScope {
  customerId: string;
  principal: Principal;
  ip: string;
  userAgent?: string | undefined;
}

/** Who changed the livestream, from where, for the account's activity log (decision 092). */
export const auditActor = (scope: CustomerScope) => ({
  ...auditActorOf(scope.principal),
  ip: scope.ip,
  userAgent: scope.userAgent ?? null,
});

/** The caller's camera (404 when not theirs), eligible for livestreaming (422 when not). */
export async function requireEligibleCamera(
  deps: Pick<LivestreamServiceDependencies, 'db' | 'clock'>,
  customerId: string,
  iccid: string,
): Promise<CameraPlanRow> {
  await requireOwnedSim(deps.db, customerId, iccid);
  const plan = await repository.findCameraPlan(deps.db, iccid);
  if (!plan) throw notFound('Camera not found');
  const eligibility = eligibilityOf(plan, deps.clock.now());
  if (!eligibility.isEligible) throw new AppError('UNPROCESSABLE', eligibility.reason);
  return plan;
}

/** The camera's livestream (409 until the camera is set up for livestreaming). */
export async function requireLivestream(db: Database, iccid: string): Promise<LivestreamRow> {
  const livestream = await repository.findBySim(db, iccid);
  if (!livestream) {
    throw new AppError('CONFLICT', 'Set up the camera for livestreaming first');
  }
  return livestream;
}

/**
 * Changes a customer's livestream and records who did it, in one transaction (the audit entry
 * names the camera's SIM); returns the changed row.
 */
export async function changeLivestream(
  db: Database,
  scope: CustomerScope,
  livestream: LivestreamRow,
  changes: Parameters<typeof repository.update>[2],
  audit: { action: string; details?: Record<string, unknown> },
): Promise<LivestreamRow> {
  return db.transaction(async (transaction) => {
    const row = await repository.update(transaction, livestream.id, changes);
    await writeAudit(transaction, {
      ...auditActor(scope),
      action: audit.action,
      subjectType: 'sim',
      subjectId: livestream.simIccid,
      details: audit.details,
    });
    return row;
  });
}
