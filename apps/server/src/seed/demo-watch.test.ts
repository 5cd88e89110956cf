import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlansResponse } from '@farmcam/contract';
import { appSettings, cameraSilences } from '../db/schema.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../test/helpers/test-app.ts';
import { demoIccid, seedDemoData } from './demo.ts';
import { demoSilentSerial } from './demo-watch.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
});
afterAll(() => context.close());

const silentIccid = demoIccid(demoSilentSerial);

describe('the demo silence', () => {
  it('shows Lambing shed silent for 8 hours, and it stays silent with no new e-mail', async () => {
    await context.services.usageSync.sync();
    await context.services.silenceDetection.detectSilentCameras();
    const token = await signInCustomer(context, 'demo@example.com');
    const plans = await context.app.inject({
      method: 'GET',
      url: '/api/cameras/plansV2',
      headers: bearer(token),
    });
    const cameras = plans.json<PlansResponse>().cameras;
    const silent = cameras.filter((camera) => camera.silence !== null);
    expect(silent.map((camera) => camera.nicknameInDatabase)).toEqual(['Lambing shed']);
    expect(silent[0]!.silence!.hours).toBe(8);
    const mails = await context.mailer.list({ to: 'demo@example.com' });
    expect(mails.filter((mail) => mail.subject.includes('silent'))).toEqual([]);
  });

  it('is seeded once, also into a database seeded before it existed', async () => {
    await context.database.db
      .delete(appSettings)
      .where(eq(appSettings.key, 'demo-watch-seed-version'));
    await seedDemoData(context.database.db, context.clock);
    await seedDemoData(context.database.db, context.clock);
    const open = await context.database.db
      .select()
      .from(cameraSilences)
      .where(eq(cameraSilences.simIccid, silentIccid));
    expect(open).toHaveLength(1);
  });
});
