/**
 * The demo's daily timelapse (decision 097): Calving pen (the demo's other active Heavy camera;
 * the livestream journey sets Farmyard up from scratch) gets a livestream, and yesterday's
 * timelapse is queued: a row 'building' with no claim. The build-timelapse job's first run (within
 * a minute of the start) makes it through the storage port like any other day, from made-up clips
 * since no camera recorded any, so `npm start` runs no ffmpeg and stays fast. Once per database
 * (its own marker), so demo databases made before it get it too.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { livestreams, timelapses } from '../db/schema.ts';
import { businessDay, previousDay } from '../lib/business-calendar.ts';
import { isPartSeeded, markPartSeeded, ownersCamera } from './demo-seed-steps.ts';

const timelapseSeedMarker = 'demo-timelapse-seed-version';
/** Calving pen. */
export const demoTimelapseSerial = 104;

export async function seedDemoTimelapse(
  executor: Executor,
  input: { now: Date; ownerEmail: string; iccid: string },
): Promise<void> {
  if (await isPartSeeded(executor, timelapseSeedMarker)) return;
  const camera = await ownersCamera(executor, input.ownerEmail, input.iccid);
  if (camera?.state === 'active') {
    // Another part of the demo may have given the camera its livestream already: that one is used.
    await executor
      .insert(livestreams)
      .values({
        simIccid: camera.iccid,
        publicId: `ls_${randomBytes(16).toString('base64url')}`,
        createdAt: input.now,
        updatedAt: input.now,
      })
      .onConflictDoNothing({ target: livestreams.simIccid });
    const [livestream] = await executor
      .select({ id: livestreams.id })
      .from(livestreams)
      .where(eq(livestreams.simIccid, camera.iccid));
    await executor
      .insert(timelapses)
      .values({
        livestreamId: livestream!.id,
        simIccid: camera.iccid,
        day: previousDay(businessDay(input.now)),
        status: 'building',
        createdAt: input.now,
        updatedAt: input.now,
      })
      .onConflictDoNothing();
  }
  await markPartSeeded(executor, timelapseSeedMarker);
}
