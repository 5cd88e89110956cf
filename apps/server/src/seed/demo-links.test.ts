/**
 * The demo's public links (decision 096): Calving pen's livestream shows a link that expires 30
 * days after seeding and an embed code for the farm shop, with views, without setup; once.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/helpers/test-app.ts';
import { livestreamLinks, livestreamLinkViews, livestreams } from '../db/schema.ts';
import { demoLinksSerial } from './demo-links.ts';
import { demoIccid, seedDemoData } from './demo.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
});
afterAll(() => context.close());

describe('the demo public links', () => {
  it('gives the demo livestream a link with an expiry and an embed code, with views, once', async () => {
    await seedDemoData(context.database.db, context.clock);
    await seedDemoData(context.database.db, context.clock);
    const [livestream] = await context.database.db
      .select()
      .from(livestreams)
      .where(eq(livestreams.simIccid, demoIccid(demoLinksSerial)));
    expect(livestream).toMatchObject({ isActive: true, scheduleHours: [12] });
    expect(livestream!.configuredAt).not.toBeNull();
    const links = await context.database.db
      .select()
      .from(livestreamLinks)
      .where(eq(livestreamLinks.livestreamId, livestream!.id));
    expect(links.map((link) => link.kind).sort()).toEqual(['embed', 'link']);
    const shared = links.find((link) => link.kind === 'link')!;
    const daysLeft = (shared.expiresAt!.getTime() - context.clock.now().getTime()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(29);
    expect(daysLeft).toBeLessThanOrEqual(31);
    const views = await context.database.db
      .select()
      .from(livestreamLinkViews)
      .where(eq(livestreamLinkViews.livestreamId, livestream!.id));
    expect(views.reduce((sum, row) => sum + row.views, 0)).toBeGreaterThan(10);
    expect(views.some((row) => row.refused > 0)).toBe(true);
  });
});
