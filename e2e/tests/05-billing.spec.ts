import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, expectAccessible, test, waitForLoginLink } from '../fixtures/portal.ts';

interface Camera {
  SIM_ICCID: string;
  nicknameInDatabase: string | null;
  STRIPE_CUSTOMER_ID: string | null;
}

/** The demo camera's billing customer id, read from the camera list as the dashboard does. */
async function cameraNamed(
  page: Page,
  nickname: string,
): Promise<{ iccid: string; billingId: string }> {
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const response = await page.request.get('/api/cameras/plansV2', {
    headers: { authorization: `Bearer ${token}` },
  });
  const { cameras } = (await response.json()) as { cameras: Camera[] };
  const camera = cameras.find((candidate) => candidate.nicknameInDatabase === nickname);
  if (!camera?.STRIPE_CUSTOMER_ID) throw new Error(`No demo camera called ${nickname}`);
  return { iccid: camera.SIM_ICCID, billingId: camera.STRIPE_CUSTOMER_ID };
}

async function screenshots(
  page: Page,
  testInfo: { outputPath: (name: string) => string },
  name: string,
) {
  await page.screenshot({ path: testInfo.outputPath(`${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath(`${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/**
 * One sign-in for the whole file, through the real e-mailed link: login links are limited to 5
 * per address per 15 minutes, and every journey here is demo@example.com's.
 */
let demoToken: string;

test.beforeAll(async ({ playwright, portalServers }, testInfo) => {
  const request = await playwright.request.newContext({
    baseURL: await portalServers.urlFor(testInfo),
    extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.251' },
  });
  const requestedAt = new Date(Date.now() - 1000);
  await request.post('/api/auth/request-login', { data: { email: 'demo@example.com' } });
  const link = await waitForLoginLink(request, 'demo@example.com', requestedAt);
  const token = link.split('/login/')[1];
  const login = await request.get(`/api/auth/login?token=${token}`);
  demoToken = ((await login.json()) as { token: string }).token;
  await request.dispose();
});

test.describe('subscriptions and billing', () => {
  test.beforeEach(async ({ page }) => {
    await page.addInitScript((token) => localStorage.setItem('token', token), demoToken);
  });

  test('switches plan with a pro-rata charge shown first', async ({
    page,
    consoleErrors,
  }, testInfo) => {
    await page.goto('/dashboard');
    const { billingId } = await cameraNamed(page, 'Top gate');
    await page.goto(`/subscription/${billingId}`);
    await expect(page.getByRole('heading', { name: 'Available Plans' })).toBeVisible();
    const current = page
      .getByRole('article', { name: 'Light Streaming' })
      .filter({ hasText: 'Current plan' });
    await expect(current).toBeVisible();
    await expect(page.getByText('Upgrade for more data').first()).toBeVisible();
    await expect(page.getByText('Upgrade for better value')).toBeVisible();
    await expect(page.getByText('•••• 4242')).toBeVisible();
    await expectAccessible(page);
    await screenshots(page, testInfo, 'subscription');

    const heavyMonthly = page
      .getByRole('article', { name: 'Heavy Streaming' })
      .filter({ hasText: 'Billed Monthly' });
    await heavyMonthly.getByRole('button', { name: 'Switch plan' }).click();
    const dialog = page.getByRole('dialog', { name: 'Switch plan confirmation' });
    await expect(dialog).toContainText('Heavy Streaming');
    await expect(dialog).toContainText('£35.00');
    await expect(dialog).toContainText('Monthly');
    await expect(dialog).toContainText(/Charged now: £\d+\.\d\d/);
    // The spec's Yes says what it does, with the amount the server's preview charges (decision 115).
    const charged = (await dialog.getByText(/^Charged now:/).textContent())!.match(
      /£\d+\.\d\d/,
    )![0];
    const confirm = dialog.getByRole('button', { name: `Yes, switch and pay ${charged}` });
    await expect(confirm).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('switch-confirmation-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(confirm).toBeInViewport();
    await page.screenshot({ path: testInfo.outputPath('switch-confirmation-390.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await confirm.click();
    await expect(page.getByText('Plan switched successfully')).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(heavyMonthly).toContainText('Current plan');
    expect(consoleErrors).toEqual([]);
  });

  test('pauses a plan, then cancels the scheduled pause', async ({ page }, testInfo) => {
    await page.goto('/dashboard');
    const { billingId } = await cameraNamed(page, 'Farmyard');
    await page.goto(`/subscription/${billingId}`);
    await page.getByRole('button', { name: 'Pause subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pause subscription' });
    await expect(dialog.getByRole('group', { name: 'Reactivation date' })).toBeVisible();
    const pauseButton = dialog.getByRole('button', { name: 'Pause', exact: true });
    await expect(pauseButton).toBeDisabled();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('pause-modal-1280.png') });
    await dialog.getByRole('radio').nth(1).check();
    await pauseButton.click();
    await dialog.getByRole('button', { name: 'Yes, pause subscription' }).click();
    await expect(page.getByText('Subscription paused successfully')).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard/);

    await page.goto(`/subscription/${billingId}`);
    await expect(page.getByText(/Pause scheduled from 1 \w+ \d{4}/)).toBeVisible();
    await page.getByRole('button', { name: 'Cancel scheduled pause' }).click();
    const cancelDialog = page.getByRole('dialog', { name: 'Cancel Scheduled Pause' });
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('cancel-pause-modal-1280.png') });
    await cancelDialog.getByRole('button', { name: 'Cancel pause' }).click();
    await expect(page.getByText('Pause canceled successfully')).toBeVisible();
    await expect(page.getByText(/Pause scheduled from/)).toBeHidden();
  });

  test("Manage plan offers no pause the server refuses, and says the server's reason", async ({
    page,
  }, testInfo) => {
    await page.goto('/dashboard');
    // Calving pen is on an annual plan, Bottom field is overdue (decision 170).
    for (const [name, reason] of [
      ['Calving pen', 'Annual plans are paid for the year ahead, so they cannot be paused.'],
      ['Bottom field', 'Please pay the overdue invoice before pausing this plan.'],
    ] as const) {
      const { billingId } = await cameraNamed(page, name);
      await page.goto(`/subscription/${billingId}`);
      await expect(page.getByText(reason)).toBeVisible();
      const pause = page.getByRole('button', { name: 'Pause subscription' });
      await expect(pause).toBeDisabled();
      await expect(pause).toHaveAccessibleDescription(reason);
    }
    await expectAccessible(page);
    await screenshots(page, testInfo, 'manage-plan-pause-refused');
  });

  test('an overdue card says what is unpaid and why; from Pay now a new card pays it unless unticked', async ({
    page,
    context,
  }, testInfo) => {
    await page.goto('/dashboard');
    const card = page.getByRole('article', { name: 'Bottom field' });
    await expect(card).toContainText(
      'Overdue payments on account. Please pay now or your Streaming Plan will be terminated.',
    );
    // One word, its cause and its date, in the server's words (decision 113).
    await expect(card).toContainText(/£12\.00 unpaid since \d{1,2} \w+ \d{4}\./);
    await expect(card).toContainText(
      /Your card ending 0341 was declined on \d{1,2} \w+ \d{4}: update it to pay £12\.00\./,
    );
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: testInfo.outputPath('overdue-card-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: testInfo.outputPath('overdue-card-390.png') });
    await page.setViewportSize({ width: 1280, height: 800 });

    const [portal] = await Promise.all([
      context.waitForEvent('page'),
      card.getByRole('button', { name: /^Pay now/ }).click(),
    ]);
    await expect(portal.getByRole('heading', { name: 'Billing' })).toBeVisible();
    // From Pay now the new card comes first, ticked to pay what is due.
    const pay = portal.getByRole('region', { name: 'Pay with a new card' });
    await expect(
      pay.getByRole('checkbox', { name: 'Pay £12.00 now with this card' }),
    ).toBeChecked();
    await expectAccessible(portal);
    await portal.screenshot({ path: testInfo.outputPath('portal-1280.png'), fullPage: true });
    await portal.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(portal);
    await portal.screenshot({ path: testInfo.outputPath('portal-390.png'), fullPage: true });
    await portal.setViewportSize({ width: 1280, height: 800 });
    // The card on file declines every charge (4000 0000 0000 0341): that is why it is overdue.
    await portal.getByRole('button', { name: /^Pay now FC-/ }).click();
    await expect(
      portal.getByText('Your card was declined. Use another card and try again.'),
    ).toBeVisible();
    // Still from Pay now: the new card comes first and pays, the box ticked as it opened.
    await expect(
      pay.getByRole('checkbox', { name: 'Pay £12.00 now with this card' }),
    ).toBeChecked();
    await pay.getByLabel('Card number').fill('4242 4242 4242 4242');
    await pay.getByLabel('Expiry (MM / YY)').fill('10 / 33');
    await pay.getByLabel('CVC').fill('123');
    await pay.getByRole('button', { name: 'Add card and pay' }).click();
    await expect(portal.getByText('Card added and the amount due paid. Thank you.')).toBeVisible();
    await expect(portal.getByText('Nothing to pay. Thank you.')).toBeVisible();
    await expect(portal.getByRole('cell', { name: 'Unpaid' })).toHaveCount(0);
    await portal.screenshot({ path: testInfo.outputPath('portal-paid-1280.png'), fullPage: true });
    await portal.close();

    await page.reload();
    await expect(card.getByRole('button', { name: /^Pay now/ })).toBeHidden();
    await expect(card).not.toContainText('Overdue payments on account');
    await expect(card.getByRole('button', { name: /^Pause subscription/ })).toBeVisible();
  });

  test('pays an invoice on the hosted invoice page with a new card', async ({
    page,
    context,
  }, testInfo) => {
    await page.goto('/dashboard');
    // An expired card says so, with the month and the amount (decision 113).
    const expiredYear = new Date().getUTCFullYear() - 1;
    await expect(page.getByRole('article', { name: 'Fuel tank' })).toContainText(
      `Your card ending 4242 expired in March ${expiredYear}: update it to pay £20.00.`,
    );
    const { billingId } = await cameraNamed(page, 'Fuel tank');
    await page.goto(`/invoices/${billingId}`);
    await expect(page.getByRole('columnheader', { name: 'Amount' })).toBeVisible();
    await expect(page.getByRole('columnheader', { name: 'Due date' })).toBeVisible();
    const openRow = page.getByRole('row').filter({ hasText: 'Unpaid' });
    await expect(openRow).toContainText(`Your card ending 4242 expired in March ${expiredYear}`);
    await expect(openRow.getByRole('link', { name: /^Download PDF of invoice FC-/ })).toBeVisible();
    await expect(page.getByRole('cell', { name: 'open', exact: true })).toHaveCount(0);
    await expectAccessible(page);
    await screenshots(page, testInfo, 'invoices');
    const [hosted] = await Promise.all([
      context.waitForEvent('page'),
      openRow.getByRole('link', { name: /Pay now/ }).click(),
    ]);
    await expect(hosted.getByRole('heading', { name: /Invoice FC-/ })).toBeVisible();
    await expect(
      hosted.getByText('This card has expired: pay with a new card below.'),
    ).toBeVisible();
    await expectAccessible(hosted);
    await hosted.screenshot({
      path: testInfo.outputPath('hosted-invoice-1280.png'),
      fullPage: true,
    });
    await hosted.getByLabel('Card number').fill('5555 5555 5555 4444');
    await hosted.getByLabel('Expiry (MM / YY)').fill('11 / 31');
    await hosted.getByLabel('CVC').fill('321');
    await hosted.getByRole('button', { name: 'Pay £20.00', exact: true }).click();
    await expect(hosted.getByText('Payment received. Thank you.')).toBeVisible();
    await hosted.close();

    await page.reload();
    await expect(page.getByRole('row').filter({ hasText: 'Unpaid' })).toHaveCount(0);
    await page.goto(`/subscription/${billingId}`);
    await expect(page.getByText('Expires 11/2031')).toBeVisible();
  });

  test('pauses from a dashboard card and cancels the scheduled pause there', async ({
    page,
  }, testInfo) => {
    await page.goto('/dashboard');
    const card = page.getByRole('article', { name: 'Farmyard' });
    await card.getByRole('button', { name: /^Pause subscription/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Pause subscription' });
    await expect(dialog.getByText('Farmyard')).toBeVisible();
    await dialog.getByRole('radio').first().check();
    await dialog.getByRole('button', { name: 'Pause', exact: true }).click();
    await dialog.getByRole('button', { name: 'Yes, pause subscription' }).click();
    await expect(page.getByText('Subscription paused successfully')).toBeVisible();
    // The list reloads a second later and the card shows the scheduled pause.
    const cancel = card.getByRole('button', { name: /^Cancel Scheduled Pause/ });
    await expect(cancel).toBeVisible();
    await page.screenshot({
      path: testInfo.outputPath('dashboard-pause-scheduled-1280.png'),
      fullPage: true,
    });
    await cancel.click();
    const cancelDialog = page.getByRole('dialog', { name: 'Cancel Scheduled Pause' });
    await expectAccessible(page);
    // Changing the date reopens the pause modal; cancelling it leaves the pause as it was.
    await cancelDialog.getByRole('button', { name: 'Change date' }).click();
    const changeDialog = page.getByRole('dialog', { name: 'Pause subscription' });
    // A pause not started yet is scheduled, not "currently paused", and keeps its date chosen.
    await expect(changeDialog.getByText(/^Pause scheduled from/)).toBeVisible();
    await expect(changeDialog.getByRole('radio').first()).toBeChecked();
    await page.keyboard.press('Escape');
    await cancel.click();
    await cancelDialog.getByRole('button', { name: 'Cancel pause' }).click();
    await expect(page.getByText('Pause canceled successfully')).toBeVisible();
    await expect(card.getByRole('button', { name: /^Pause subscription/ })).toBeVisible();
  });

  test('downloads an invoice PDF', async ({ page }) => {
    await page.goto('/dashboard');
    const { billingId } = await cameraNamed(page, 'Lambing shed');
    await page.goto(`/invoices/${billingId}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page
        .getByRole('link', { name: /^Download PDF of invoice/ })
        .first()
        .click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^invoice-FC-.*\.pdf$/);
    const file = await download.path();
    expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
  });

  test('renews a camera with no subscription', async ({ page }, testInfo) => {
    await page.goto('/dashboard');
    const { iccid, billingId } = await cameraNamed(page, 'Machinery shed');
    await page.goto(`/pricing/${iccid}/${billingId}`);
    await expect(
      page.getByRole('heading', { name: 'No active subscription associated with SIM.' }),
    ).toBeVisible();
    await expect(page.getByRole('radio', { name: 'United Kingdom' })).toBeChecked();
    await expectAccessible(page);
    await screenshots(page, testInfo, 'pricing');
    const submit = page.getByRole('button', { name: 'Continue to payment' });
    await expect(submit).toBeDisabled();
    await page.getByRole('radio', { name: /Standard Streaming £20\.00 \/ month/ }).check();
    await submit.click();

    await expect(
      page.getByRole('heading', { name: 'Subscribe to Standard Streaming' }),
    ).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('checkout-1280.png'), fullPage: true });
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByLabel('Expiry (MM / YY)').fill('12 / 30');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /Subscribe and pay/ }).click();
    await expect(page.getByRole('alert')).toContainText('declined');
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry (MM / YY)').fill('12 / 30');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /Subscribe and pay/ }).click();
    await expect(page).toHaveURL(/\/dashboard/);

    await page.goto(`/pricing/${iccid}/${billingId}`);
    await expect(page.getByText('This camera already has a subscription.')).toBeVisible();
  });
});
