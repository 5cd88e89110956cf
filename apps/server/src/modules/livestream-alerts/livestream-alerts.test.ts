/**
 * The livestream's e-mails (docs/decisions/096): the day-7 warning before the 10-day switch-off
 * to the owner, once per grace period; the "no clip for N scheduled hours" alert, once, and the
 * "arriving again" e-mail after the next clip, to the owner and members who chose camera alerts.
 */
import { cameraNameOf } from '@farmcam/contract/rules';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMember } from '../../../test/helpers/members.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { cameraWatchSettings, clips, customers, livestreams, outbox } from '../../db/schema.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { createLivestreamAlertsService } from './livestream-alerts.service.ts';
import { publicPlaybackRepository } from '../public-playback/public-playback.repository.ts';
import { chooseCameraAlertEmails, testNotifier } from '../../../test/helpers/notifications.ts';
import { newPublicId } from '../livestream/livestream-setup.service.ts';

let context: TestContext;
const farmyard = demoIccid(103); // Heavy monthly, active
const calvingPen = demoIccid(104); // Heavy annual, active
const dayMs = 86_400_000;

const alerts = () =>
  createLivestreamAlertsService({
    db: context.database.db,
    clock: context.clock,
    notifier: testNotifier(context),
    mailer: context.mailer,
    publicUrl: 'http://portal.test',
    log: { info: () => {}, warn: () => {}, error: () => {} },
  });

beforeAll(async () => {
  context = await createTestContext();
  // Tuesday noon, UK winter time.
  context.clock.set('2026-11-24T12:00:00Z');
  await seedDemoData(context.database.db, context.clock);
  // The demo's own Calving pen livestream (seed/demo-links.ts) would be warned too: these tests
  // make their own.
  await context.database.db.delete(livestreams).where(eq(livestreams.simIccid, calvingPen));
});
afterAll(() => context.close());

const inbox = async () =>
  (await context.mailer.list({ to: 'demo@example.com' })).map((message) => message.subject);

describe('the day-7 warning before the switch-off', () => {
  it('goes out once, names the date, and again only after the code was seen and lost again', async () => {
    await context.database.db.delete(outbox);
    const now = context.clock.now();
    const [row] = await context.database.db
      .insert(livestreams)
      .values({
        simIccid: farmyard,
        publicId: newPublicId(),
        isActive: true,
        activatedAt: new Date(now.getTime() - 6 * dayMs),
        configuredAt: new Date(now.getTime() - 6 * dayMs),
      })
      .returning();
    expect(await alerts().warnUnused()).toEqual({ warned: 0 });

    context.clock.advance(dayMs + 3_600_000);
    expect(await alerts().warnUnused()).toEqual({ warned: 1 });
    expect(await alerts().warnUnused()).toEqual({ warned: 0 });
    const [message] = await context.mailer.list({ to: 'demo@example.com', limit: 1 });
    // Switched on Wednesday 18 November at noon: switched off 10 days later.
    expect(message!.subject).toMatch(/will be switched off on Saturday 28 November$/);
    expect(message!.text).toContain('unless it is seen on your website');

    // Seen on a website: the warning is cleared; 7 days later it goes out again.
    await publicPlaybackRepository.markSeenOnSite(
      context.database.db,
      row!.id,
      context.clock.now(),
    );
    const [seen] = await context.database.db
      .select()
      .from(livestreams)
      .where(eq(livestreams.id, row!.id));
    expect(seen!.switchOffWarnedAt).toBeNull();
    context.clock.advance(7 * dayMs + 3_600_000);
    expect(await alerts().warnUnused()).toEqual({ warned: 1 });
    expect(
      (await inbox()).filter((subject) => subject.includes('will be switched off')),
    ).toHaveLength(2);

    // Past the 10 days it is the switch-off's e-mail, not another warning.
    context.clock.advance(4 * dayMs);
    expect(await alerts().warnUnused()).toEqual({ warned: 0 });
  });
});

describe('no clip for the chosen scheduled hours', () => {
  it('e-mails once after N scheduled hours without a clip, counting only scheduled hours, and says when clips return', async () => {
    await context.database.db.delete(outbox);
    // Tuesday 1 December, 07:30 UK (winter: UTC).
    context.clock.set('2026-12-01T07:30:00Z');
    const now = context.clock.now();
    const [row] = await context.database.db
      .insert(livestreams)
      .values({
        simIccid: calvingPen,
        publicId: newPublicId(),
        isActive: true,
        activatedAt: new Date(now.getTime() - 30 * dayMs),
        configuredAt: new Date(now.getTime() - 30 * dayMs),
        // 09:00-11:00 and 15:00 on weekdays.
        scheduleHours: [9, 10, 11, 15],
        scheduleDays: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'],
      })
      .returning();
    // The last clip: yesterday (Monday) at 15:00.
    await context.database.db.insert(clips).values({
      livestreamId: row!.id,
      storageKey: `livestreams/${row!.id}/a.mp4`,
      status: 'ready',
      durationSeconds: 15,
      recordedAt: new Date('2026-11-30T15:00:20Z'),
    });
    // Camera alerts reach the members who turned them on (decision 094), not the others.
    const [owner] = await context.database.db
      .select()
      .from(customers)
      .where(eq(customers.email, 'demo@example.com'));
    const herdsman = await insertMember(context, owner!.id, {
      email: 'herdsman@example.com',
      role: 'viewer',
      allCameras: false,
      iccids: [calvingPen],
    });
    await chooseCameraAlertEmails(context.database.db, owner!.id, herdsman);
    await insertMember(context, owner!.id, { email: 'quiet@example.com', role: 'manager' });
    // Off (null): nothing, however long.
    await context.database.db
      .insert(cameraWatchSettings)
      .values({ simIccid: calvingPen, noClipHours: null })
      .onConflictDoUpdate({ target: cameraWatchSettings.simIccid, set: { noClipHours: null } });
    context.clock.set('2026-12-01T16:30:00Z');
    expect(await alerts().alertMissingClips()).toEqual({ alerted: 0, recovered: 0 });

    await context.database.db
      .update(cameraWatchSettings)
      .set({ noClipHours: 3 })
      .where(eq(cameraWatchSettings.simIccid, calvingPen));
    // 11:30 Tuesday: slots 09 and 10 are over (the night's hours do not count): not yet.
    context.clock.set('2026-12-01T11:30:00Z');
    expect(await alerts().alertMissingClips()).toEqual({ alerted: 0, recovered: 0 });
    // 12:05: slot 11 is over too: three scheduled hours without a clip.
    context.clock.set('2026-12-01T12:05:00Z');
    expect(await alerts().alertMissingClips()).toEqual({ alerted: 1, recovered: 0 });
    expect(await alerts().alertMissingClips()).toEqual({ alerted: 0, recovered: 0 });
    context.clock.set('2026-12-01T16:05:00Z');
    expect(await alerts().alertMissingClips()).toEqual({ alerted: 0, recovered: 0 });
    expect(await inbox()).toEqual([
      `No livestream clips from ${await nickname()} for 3 scheduled hours`,
    ]);
    const subjectsTo = async (to: string) =>
      (await context.mailer.list({ to })).map((message) => message.subject);
    expect(await subjectsTo('herdsman@example.com')).toEqual(await inbox());
    expect(await subjectsTo('quiet@example.com')).toEqual([]);

    // The next clip: cleared, with one "arriving again" e-mail.
    await context.database.db.insert(clips).values({
      livestreamId: row!.id,
      storageKey: `livestreams/${row!.id}/b.mp4`,
      status: 'ready',
      durationSeconds: 15,
      recordedAt: new Date('2026-12-01T16:10:00Z'),
    });
    context.clock.set('2026-12-01T16:20:00Z');
    expect(await alerts().alertMissingClips()).toEqual({ alerted: 0, recovered: 1 });
    expect(await alerts().alertMissingClips()).toEqual({ alerted: 0, recovered: 0 });
    expect((await inbox())[0]).toMatch(/are arriving again$/);
    expect((await subjectsTo('herdsman@example.com'))[0]).toMatch(/are arriving again$/);
    const [cleared] = await context.database.db
      .select()
      .from(livestreams)
      .where(eq(livestreams.id, row!.id));
    expect(cleared!.noClipAlertedAt).toBeNull();
  });
});

async function nickname() {
  const { sims } = await import('../../db/schema.ts');
  const [sim] = await context.database.db.select().from(sims).where(eq(sims.iccid, calvingPen));
  return cameraNameOf(sim?.nickname, calvingPen);
}
