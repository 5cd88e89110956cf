/**
 * The demo's public livestream links (decision 096): Calving pen's livestream (the demo's other
 * active Heavy camera; the livestream journey sets Farmyard up from scratch) is configured with a
 * once-a-day schedule and given a link to share that expires 30 days after seeding and an embed
 * code for the farm shop's website, with some views over the last days (and plays refused on a
 * site not on the list), so the Public links section shows without setup. Once per database (its
 * own marker), so demo databases made before it get it too.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { livestreamLinks, livestreamLinkViews, livestreams } from '../db/schema.ts';
import { businessDay, dayMs, endOfBusinessDay, isoDay } from '../lib/business-calendar.ts';
import { isPartSeeded, markPartSeeded, ownersCamera } from './demo-seed-steps.ts';

const linksSeedMarker = 'demo-links-seed-version';
/** Calving pen. */
export const demoLinksSerial = 104;
export const demoShopDomain = 'www.hillside-farm-shop.example';
/** Days the demo's shared link works from seeding. */
export const demoLinkDays = 30;

export async function seedDemoLinks(
  executor: Executor,
  input: { now: Date; ownerEmail: string; iccid: string },
): Promise<void> {
  if (await isPartSeeded(executor, linksSeedMarker)) return;
  const { now } = input;
  const camera = await ownersCamera(executor, input.ownerEmail, input.iccid);
  if (camera?.state === 'active') {
    // Another part of the demo (the timelapse) may have made the livestream already: that one is
    // used, and given a schedule if it has none.
    await executor
      .insert(livestreams)
      .values({
        simIccid: camera.iccid,
        publicId: `ls_${randomBytes(16).toString('base64url')}`,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing({ target: livestreams.simIccid });
    await executor
      .update(livestreams)
      .set({
        // One 15 s clip a day at noon: the demo plays without costing the machine much.
        scheduleHours: [12],
        scheduleDays: [
          'MONDAY',
          'TUESDAY',
          'WEDNESDAY',
          'THURSDAY',
          'FRIDAY',
          'SATURDAY',
          'SUNDAY',
        ],
        isActive: true,
        configuredAt: now,
        activatedAt: now,
        lastSeenOnSiteAt: now,
        updatedAt: now,
      })
      .where(and(eq(livestreams.simIccid, camera.iccid), isNull(livestreams.configuredAt)));
    const [livestream] = await executor
      .select({ id: livestreams.id })
      .from(livestreams)
      .where(eq(livestreams.simIccid, camera.iccid));
    const livestreamId = livestream!.id;
    const today = businessDay(now);
    const dayBefore = (days: number) =>
      isoDay(new Date(Date.parse(`${today}T00:00:00Z`) - days * dayMs));
    const [shared] = await executor
      .insert(livestreamLinks)
      .values({
        livestreamId,
        token: `lk_${randomBytes(18).toString('base64url')}`,
        kind: 'link',
        label: 'For the vet',
        expiresAt: endOfBusinessDay(
          isoDay(new Date(Date.parse(`${today}T00:00:00Z`) + demoLinkDays * dayMs)),
        ),
        createdAt: new Date(now.getTime() - 6 * dayMs),
      })
      .returning();
    const [embed] = await executor
      .insert(livestreamLinks)
      .values({
        livestreamId,
        token: `lk_${randomBytes(18).toString('base64url')}`,
        kind: 'embed',
        label: 'Farm shop website',
        allowedDomains: [demoShopDomain],
        createdAt: new Date(now.getTime() - 9 * dayMs),
      })
      .returning();
    const views: (typeof livestreamLinkViews.$inferInsert)[] = [];
    for (let days = 0; days < 9; days += 1) {
      views.push({
        subject: embed!.id,
        livestreamId,
        day: dayBefore(days),
        siteHost: demoShopDomain,
        views: 3 + ((days * 5) % 7),
        refused: 0,
      });
    }
    views.push(
      {
        subject: embed!.id,
        livestreamId,
        day: dayBefore(2),
        siteHost: 'copycat.example',
        views: 0,
        refused: 2,
      },
      {
        subject: shared!.id,
        livestreamId,
        day: dayBefore(5),
        siteHost: 'direct',
        views: 2,
        refused: 0,
      },
      {
        subject: shared!.id,
        livestreamId,
        day: dayBefore(1),
        siteHost: 'direct',
        views: 1,
        refused: 0,
      },
    );
    await executor.insert(livestreamLinkViews).values(views).onConflictDoNothing();
  }
  await markPartSeeded(executor, linksSeedMarker);
}
