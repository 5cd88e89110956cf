/**
 * Viewers who are gone (left, stopped beating, or did not answer "Still watching?"), each written
 * on the account's Activity log once: who, which camera, how long, how much data (decision 152).
 */
import { liveViewTimings } from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import { writeAudit, type AuditActor } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import { liveViewRepository as repository } from './live-view.repository.ts';

export async function closeViewersAndLog(
  db: Database,
  clock: Clock,
  viewerId?: string,
): Promise<number> {
  const now = clock.now();
  return db.transaction(async (transaction) => {
    const closed = await repository.closeViewers(transaction, {
      now,
      viewerId,
      seenBefore: new Date(now.getTime() - liveViewTimings.viewerGoneSeconds * 1000),
      confirmedBefore: new Date(
        now.getTime() -
          (liveViewTimings.stillWatchingAfterSeconds + liveViewTimings.stillWatchingGraceSeconds) *
            1000,
      ),
    });
    for (const viewer of closed) {
      // A viewer who vanished watched until their last heartbeat, not until we noticed.
      const until = viewer.leftAt && viewer.id !== viewerId ? viewer.lastSeenAt : now;
      await writeAudit(transaction, {
        ...(viewer.actor as unknown as AuditActor),
        action: 'live-view.watched',
        subjectType: 'sim',
        subjectId: viewer.simIccid,
        details: {
          camera: viewer.nickname,
          seconds: Math.max(0, Math.round((until.getTime() - viewer.joinedAt.getTime()) / 1000)),
          bytes: Math.max(0, viewer.bytes_pulled - viewer.bytesAtJoin),
        },
      });
    }
    return closed.length;
  });
}
