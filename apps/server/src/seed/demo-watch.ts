/**
 * The demo's silence alert (decision 094): Lambing shed (an active Standard camera, not the
 * Heavy livestream one nor Top gate, which the vet's journey uses) lost power 8 hours ago. With
 * the local SIM platform it stays silent (sims.local_silent_since), its heartbeat says when it
 * was last heard, and its silence is open and already e-mailed, so the dashboard shows the
 * banner at once. Once per database (its own marker), so existing demo databases get it too.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { cameraHeartbeats, cameraSilences, routerStatus, sims } from '../db/schema.ts';
import { isPartSeeded, markPartSeeded, ownersCamera } from './demo-seed-steps.ts';

const watchSeedMarker = 'demo-watch-seed-version';
export const demoSilentSerial = 102;
const silentHours = 8;

export async function seedDemoWatch(
  executor: Executor,
  input: { now: Date; ownerEmail: string; iccid: string },
): Promise<void> {
  if (await isPartSeeded(executor, watchSeedMarker)) return;
  const camera = await ownersCamera(executor, input.ownerEmail, input.iccid);
  if (camera?.state === 'active') {
    const since = new Date(input.now.getTime() - silentHours * 3_600_000);
    await executor
      .update(sims)
      .set({ localSilentSince: since, updatedAt: input.now })
      .where(eq(sims.iccid, camera.iccid));
    // Its router's last report is the one before the silence, as the platform would give it.
    await executor
      .update(routerStatus)
      .set({ updatedAt: since })
      .where(eq(routerStatus.simIccid, camera.iccid));
    await executor
      .insert(cameraHeartbeats)
      .values({ simIccid: camera.iccid, lastReportAt: since, updatedAt: input.now })
      .onConflictDoUpdate({
        target: cameraHeartbeats.simIccid,
        set: { lastDataAt: null, lastReportAt: since, updatedAt: input.now },
      });
    const [open] = await executor
      .select({ id: cameraSilences.id })
      .from(cameraSilences)
      .where(and(eq(cameraSilences.simIccid, camera.iccid), isNull(cameraSilences.endedAt)));
    if (!open) {
      await executor.insert(cameraSilences).values({
        simIccid: camera.iccid,
        silentSince: since,
        detectedAt: new Date(since.getTime() + 6 * 3_600_000),
        alertedAt: new Date(since.getTime() + 6 * 3_600_000),
      });
    }
  }
  await markPartSeeded(executor, watchSeedMarker);
}
