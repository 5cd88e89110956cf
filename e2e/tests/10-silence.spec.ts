import { expect, test, waitForMail } from '../fixtures/portal.ts';
import { cameraNamed, card, openPortalAs, screensAtBothWidths } from './dashboard-helpers.ts';

/**
 * Silence alerts (issue 17 part 1, decision 094): the demo's Lambing shed has been silent for 8
 * hours and says so on its card and details page; Top gate is made silent through the
 * development route (as if its power had gone 7 hours ago), the watch runs, the owner is e-mailed
 * once; it is made live again and the back-again e-mail gives the outage's length. Top gate is
 * live again at the end, as the other journeys expect it.
 */
const ownerEmail = 'demo@example.com';
const silentCamera = 'Lambing shed';
const banner = /No data from this camera for \d+ hours \(since .+\)\. Check its power and signal\./;

interface PlanCamera {
  SIM_ICCID: string;
  nicknameInDatabase: string | null;
  silence: { since: string; hours: number } | null;
}

test.describe.configure({ mode: 'serial' });

test.describe('silence alerts', () => {
  test("the demo's silent camera shows its banner on the dashboard and its details page", async ({
    page,
    signIn,
    consoleErrors,
  }, testInfo) => {
    await openPortalAs(page, signIn, ownerEmail);
    const lambingShed = card(page, silentCamera);
    await expect(lambingShed.getByRole('status')).toHaveText(banner);
    await expect(lambingShed.getByRole('status')).toContainText('for 8 hours');
    await lambingShed.scrollIntoViewIfNeeded();
    await screensAtBothWidths(page, testInfo, 'dashboard-silent-camera');

    const camera = await cameraNamed<PlanCamera>(page, silentCamera);
    await page.goto(`/camera/${camera.SIM_ICCID}`);
    await expect(
      page.getByRole('status').filter({ hasText: 'No data from this camera' }),
    ).toHaveText(banner);
    const alerts = page.getByRole('form', { name: 'Camera alerts' });
    await expect(alerts.getByLabel('E-mail when the camera sends no data')).toHaveValue('6');
    await screensAtBothWidths(page, testInfo, 'camera-details-silent');
    expect(consoleErrors).toEqual([]);
  });

  test('a camera that goes silent e-mails the owner once, and again with the outage when it is back', async ({
    page,
    signIn,
    consoleErrors,
  }) => {
    await openPortalAs(page, signIn, ownerEmail);
    const topGate = await cameraNamed<PlanCamera>(page, 'Top gate');
    const silencePath = `/dev/cameras/${topGate.SIM_ICCID}/silence`;
    const startedAt = new Date(Date.now() - 1000);
    try {
      const since = new Date(Date.now() - 7 * 3_600_000).toISOString();
      expect((await page.request.post(silencePath, { data: { since } })).status()).toBe(200);
      expect((await page.request.post('/dev/camera-watch/run')).status()).toBe(200);
      const silent = await waitForMail(page.request, ownerEmail, startedAt, {
        what: 'the silence e-mail',
        accept: (message) => message.subject === 'Top gate has gone silent',
      });
      expect(silent.text).toContain('Please check its power');
      // Running again sends nothing more.
      expect((await page.request.post('/dev/camera-watch/run')).status()).toBe(200);
      const outbox = (await (
        await page.request.get(`/dev/outbox?to=${encodeURIComponent(ownerEmail)}&limit=20`)
      ).json()) as { subject: string; createdAt: string }[];
      expect(
        outbox.filter(
          (message) =>
            message.subject === 'Top gate has gone silent' &&
            new Date(message.createdAt) >= startedAt,
        ),
      ).toHaveLength(1);

      await page.reload();
      await expect(card(page, 'Top gate').getByRole('status')).toHaveText(banner);
    } finally {
      expect((await page.request.delete(silencePath)).status()).toBe(200);
      expect((await page.request.post('/dev/camera-watch/run')).status()).toBe(200);
    }
    const back = await waitForMail(page.request, ownerEmail, startedAt, {
      what: 'the back-again e-mail',
      accept: (message) => message.subject.startsWith('Top gate is back after'),
    });
    expect(back.subject).toMatch(/^Top gate is back after (6|7) hours( \d+ minutes?)?$/);
    await page.reload();
    await expect(card(page, 'Top gate')).toBeVisible();
    await expect(card(page, 'Top gate').getByText('No data from this camera')).toHaveCount(0);
    expect(consoleErrors).toEqual([]);
  });
});
