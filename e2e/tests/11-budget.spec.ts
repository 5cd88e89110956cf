import type { Page } from '@playwright/test';
import { expect, test, waitForMail } from '../fixtures/portal.ts';
import { cameraNamed, card, openPortalAs, screensAtBothWidths } from './dashboard-helpers.ts';

/**
 * Budget protection (issue 17 part 2, decision 095): the owner turns on "pause data at the
 * allowance" for Farmyard, the camera uses more than its plan through the development route
 * (the local platform), the check pauses its data and e-mails the owner; the dashboard card and
 * the details page say so with what resuming costs; one click resumes it until the month's end
 * and the banner goes. Farmyard's setting is put back at the end, as the other journeys expect.
 */
const ownerEmail = 'demo@example.com';
const cameraName = 'Farmyard';
const banner = /^Data paused: Farmyard used its [\d.]+ GB this month\.$/;
const resumeName = `Resume until the end of the month for ${cameraName}`;

interface PlanCamera {
  SIM_ICCID: string;
  nicknameInDatabase: string | null;
  usage: { planAllowanceGB: number | null };
  dataCap: { stoppedAt: string; canResume: boolean; costNote: string } | null;
}

async function bearer(page: Page) {
  const token = await page.evaluate(() => localStorage.getItem('token'));
  return { authorization: `Bearer ${token}` };
}

test.describe.configure({ mode: 'serial' });

test.describe('budget protection', () => {
  test('data paused at the allowance, explained, and resumed with one click', async ({
    page,
    signIn,
    consoleErrors,
  }, testInfo) => {
    await openPortalAs(page, signIn, ownerEmail);
    const farmyard = await cameraNamed<PlanCamera>(page, cameraName);
    const settingsUrl = `/api/cameras/alert-settings/${farmyard.SIM_ICCID}`;
    const settings = (await (
      await page.request.get(settingsUrl, { headers: await bearer(page) })
    ).json()) as Record<string, unknown>;
    const saved = {
      silenceHours: settings.silenceHours,
      dataAlertPercent: settings.dataAlertPercent,
      pauseDataAtAllowance: settings.pauseDataAtAllowance,
      noClipHours: settings.noClipHours,
    };
    const startedAt = new Date(Date.now() - 1000);
    try {
      const turnedOn = await page.request.put(settingsUrl, {
        headers: await bearer(page),
        data: { ...saved, pauseDataAtAllowance: true },
      });
      expect(turnedOn.status()).toBe(200);

      // The camera uses a whole plan's data more today; the checks run at once.
      const used = await page.request.post(`/dev/cameras/${farmyard.SIM_ICCID}/data-usage`, {
        data: { gigabytes: (farmyard.usage.planAllowanceGB ?? 50) + 1 },
      });
      expect(used.status()).toBe(200);
      const mail = await waitForMail(page.request, ownerEmail, startedAt, {
        what: 'the data-paused e-mail',
        accept: (message) => message.subject.startsWith(`${cameraName}'s data is paused`),
      });
      expect(mail.text).toContain('Resume until the end of the month');

      await page.goto('/dashboard');
      const onCard = card(page, cameraName);
      await expect(onCard.getByText(banner)).toBeVisible();
      await expect(onCard.getByText('Resuming adds nothing to your bill')).toBeVisible();
      await expect(onCard.getByRole('button', { name: resumeName })).toBeVisible();
      await onCard.scrollIntoViewIfNeeded();
      await screensAtBothWidths(page, testInfo, 'dashboard-data-paused');

      await page.goto(`/camera/${farmyard.SIM_ICCID}`);
      await expect(page.getByText(banner)).toBeVisible();
      await expect(page.getByText('Pause data when the plan is used up:')).toBeVisible();
      await screensAtBothWidths(page, testInfo, 'camera-details-data-paused');

      await page.getByRole('button', { name: resumeName }).click();
      await expect(page.getByText(banner)).toHaveCount(0);
      await page.goto('/dashboard');
      await expect(card(page, cameraName)).toBeVisible();
      await expect(card(page, cameraName).getByText(banner)).toHaveCount(0);
      expect((await cameraNamed<PlanCamera>(page, cameraName)).dataCap).toBeNull();

      // More data the same month does not pause it again.
      await page.request.post(`/dev/cameras/${farmyard.SIM_ICCID}/data-usage`, {
        data: { gigabytes: 1 },
      });
      expect((await cameraNamed<PlanCamera>(page, cameraName)).dataCap).toBeNull();
    } finally {
      await page.request.put(settingsUrl, { headers: await bearer(page), data: saved });
    }
    expect(consoleErrors).toEqual([]);
  });

  test('the owner sets a monthly spend alert on the Account page', async ({
    page,
    signIn,
    consoleErrors,
  }, testInfo) => {
    await openPortalAs(page, signIn, ownerEmail);
    await expect(page.getByText(/This month your invoices come to £[\d,]+\.\d\d/)).toBeVisible();
    const card = page.getByRole('form', { name: 'Monthly spend alert' });
    const field = card.getByLabel("E-mail me when this month's bill reaches (£)");
    try {
      await field.fill('100000');
      await card.getByRole('button', { name: 'Save spend alert' }).click();
      await expect(
        page.getByText("We will e-mail you when this month's bill reaches £100,000.00"),
      ).toBeVisible();
      await page.reload();
      await expect(
        page
          .getByRole('form', { name: 'Monthly spend alert' })
          .getByLabel("E-mail me when this month's bill reaches (£)"),
      ).toHaveValue('100000');
      await page.getByRole('form', { name: 'Monthly spend alert' }).scrollIntoViewIfNeeded();
      await screensAtBothWidths(page, testInfo, 'account-spend-alert');
    } finally {
      const token = await page.evaluate(() => localStorage.getItem('token'));
      await page.request.put('/api/account/spend-alert', {
        headers: { authorization: `Bearer ${token}` },
        data: { amountMinor: null },
      });
    }
    expect(consoleErrors).toEqual([]);
  });
});
