import type { Page } from '@playwright/test';
import { expect, expectAccessible, test } from '../fixtures/portal.ts';
import { card, openPortalAs } from './dashboard-helpers.ts';

/** The demo account's cameras (apps/server/src/seed/demo.ts) and what each card must say (docs/requirements.md#screens, #states). */
const demoCards = [
  { name: 'Top gate', chip: 'Active', plan: 'Light Streaming', billing: 'Billed Monthly' },
  { name: 'Lambing shed', chip: 'Active', plan: 'Standard Streaming', billing: 'Billed Annually' },
  { name: 'Farmyard', chip: 'Active', plan: 'Heavy Streaming', isLivestream: true },
  // Its livestream is set up already (the demo's links): managed, not set up again (decision 121).
  { name: 'Calving pen', chip: 'Active', plan: 'Heavy Streaming', managesLivestream: true },
  { name: 'Grain store', chip: 'Paused', text: 'can be restarted at the start of any month' },
  { name: 'Holiday cottage', chip: 'Pause scheduled', text: 'Pause scheduled from' },
  {
    name: 'Fuel tank',
    chip: 'Past due',
    text: 'Overdue payments on account. Please pay now or your Streaming Plan will be terminated.',
  },
  {
    name: 'Bottom field',
    chip: 'Overdue',
    text: 'Overdue payments on account. Please pay now or your Streaming Plan will be terminated.',
  },
  { name: 'Old dairy', chip: 'Terminated', text: 'Streaming plan cancelled and SIM deactivated.' },
  {
    name: 'Machinery shed',
    chip: 'Attention',
    text: 'No active subscription found, please renew immediately or your Streaming Plan will be terminated.',
  },
];

/** Chip backgrounds from styles/global.css (docs/requirements.md#states colours). */
const chipBackgrounds: Record<string, string> = {
  Active: 'rgb(230, 240, 231)',
  Paused: 'rgb(255, 243, 223)',
  'Pause scheduled': 'rgb(255, 243, 223)',
  'Past due': 'rgb(253, 236, 235)',
  Overdue: 'rgb(253, 236, 235)',
  Attention: 'rgb(253, 236, 235)',
  Terminated: 'rgb(59, 68, 64)',
};

async function expectEveryDemoState(page: Page) {
  for (const expected of demoCards) {
    const camera = card(page, expected.name);
    await expect(camera).toBeVisible();
    const chip = camera.getByText(expected.chip, { exact: true });
    await expect(chip).toBeVisible();
    expect(await chip.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
      chipBackgrounds[expected.chip],
    );
    await expect(camera).toContainText(/SIM 894411\d{13}/);
    await expect(camera).toContainText(/\d GB/);
    if (expected.plan) await expect(camera).toContainText(expected.plan);
    if (expected.billing) await expect(camera).toContainText(expected.billing);
    if (expected.text) await expect(camera).toContainText(expected.text);
    await expect(camera.getByRole('link', { name: /Setup Livestreaming/ })).toHaveCount(
      expected.isLivestream ? 1 : 0,
    );
    await expect(camera.getByRole('link', { name: /^Manage livestream/ })).toHaveCount(
      expected.managesLivestream ? 1 : 0,
    );
    await expect(camera.getByRole('link', { name: /More info/ })).toBeVisible();
  }
}

test.describe('dashboard', () => {
  test('shows every card state of the demo account on desktop and phone', async ({
    page,
    signIn,
    consoleErrors,
  }, testInfo) => {
    await openPortalAs(page, signIn, 'demo@example.com');
    await expect(page.getByText(/^\d{1,3}\.\d%$/)).toBeVisible();
    await expect(page.getByText(/of your combined plan remaining/)).toBeVisible();
    await expect(page.getByText('Plans reset on the 1st of each month')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'My cameras (10)' })).toBeVisible();
    await expectEveryDemoState(page);

    const noSubscription = card(page, 'Machinery shed');
    await expect(noSubscription.getByRole('link', { name: /Renew subscription/ })).toHaveAttribute(
      'href',
      /^\/pricing\/\d{19}\/cus_/,
    );
    await expect(card(page, 'Top gate').getByRole('link', { name: /Manage plan/ })).toHaveAttribute(
      'href',
      /^\/subscription\/cus_/,
    );
    await expect(card(page, 'Top gate').getByRole('link', { name: /Invoices/ })).toHaveAttribute(
      'href',
      /^\/invoices\/cus_/,
    );
    // The cards sit in columns at least 18rem (288 px) wide.
    const widths = await page
      .getByRole('article')
      .evaluateAll((cards) => cards.map((element) => element.getBoundingClientRect().width));
    expect(Math.min(...widths)).toBeGreaterThanOrEqual(288);
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('dashboard-1280.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    await expectEveryDemoState(page);
    const phoneWidths = await page
      .getByRole('article')
      .evaluateAll((cards) => cards.map((element) => element.getBoundingClientRect().width));
    expect(Math.max(...phoneWidths)).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('dashboard-390.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
  });

  test('renames a camera, and the name stays after a reload', async ({
    page,
    signIn,
  }, testInfo) => {
    await openPortalAs(page, signIn, 'demo@example.com');
    await card(page, 'Lambing shed')
      .getByRole('button', { name: 'Edit name of Lambing shed' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Update camera name' });
    const field = dialog.getByRole('textbox', { name: 'Camera name' });
    const update = dialog.getByRole('button', { name: 'Update' });
    await expect(field).toHaveValue('Lambing shed');
    await expect(update).toBeDisabled();
    await field.fill('   ');
    await expect(update).toBeDisabled();
    await field.fill('  Ewes & <lambs>  ');
    await expect(update).toBeEnabled();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('rename-1280.png') });
    await update.click();

    await expect(page.getByText('Camera name updated successfully')).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(card(page, 'Ewes & <lambs>')).toBeVisible();
    await page.reload();
    await expect(card(page, 'Ewes & <lambs>')).toBeVisible();

    // Put it back for the other journeys.
    await card(page, 'Ewes & <lambs>')
      .getByRole('button', { name: /Edit name of/ })
      .click();
    await dialog.getByRole('textbox', { name: 'Camera name' }).fill('Lambing shed');
    await dialog.getByRole('button', { name: 'Update' }).click();
    await expect(card(page, 'Lambing shed')).toBeVisible();
  });

  test('explains where to find the activation code', async ({ page, signIn }) => {
    await openPortalAs(page, signIn, 'demo@example.com');
    await page.getByRole('button', { name: 'Where do I find my activation code?' }).click();
    const dialog = page.getByRole('dialog', { name: 'Where to find your activation code' });
    await expect(dialog.getByRole('heading', { name: 'Virtual SIM' })).toBeVisible();
    await expect(dialog.getByRole('heading', { name: 'Physical SIM' })).toBeVisible();
    await expectAccessible(page);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });

  test('reloads on ?refresh=true and settles on /dashboard', async ({ page, signIn }) => {
    await openPortalAs(page, signIn, 'demo@example.com');
    await page.goto('/dashboard?refresh=true');
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(card(page, 'Top gate')).toBeVisible();
  });

  test('opens the camera details and draws this month’s usage', async ({
    page,
    signIn,
    consoleErrors,
  }, testInfo) => {
    const chartChunks: string[] = [];
    page.on('request', (request) => {
      if (/usage-chart/.test(request.url())) chartChunks.push(request.url());
    });
    await openPortalAs(page, signIn, 'demo@example.com');
    await expect(card(page, 'Top gate')).toBeVisible();
    expect(chartChunks).toEqual([]);

    await card(page, 'Top gate')
      .getByRole('link', { name: /More info/ })
      .click();
    await expect(page).toHaveURL(/\/camera\/\d{19}$/);
    await expect(page.getByRole('heading', { name: 'Camera details' })).toBeVisible();
    const simCard = page.locator('section', {
      has: page.getByRole('heading', { name: 'SIM information' }),
    });
    await expect(simCard).toContainText('Currently active');
    await expect(simCard).toContainText('Yes');
    const routerCard = page.locator('section', {
      has: page.getByRole('heading', { name: 'Router information' }),
    });
    await expect(routerCard).toContainText(/Farmcam-|FARMCAM-/);
    await expect(routerCard).toContainText(/-\d{2,3}/);

    // The chart loads when it comes near the screen (decision 083), below the live view's card:
    // scroll to it as a farmer would.
    await page.getByRole('heading', { name: 'Overview' }).scrollIntoViewIfNeeded();
    const chart = page.getByRole('img', { name: /Line chart of data used per day/ });
    await expect(chart).toBeVisible();
    expect(chartChunks.length).toBe(1);
    // Something is drawn: the canvas has non-transparent pixels.
    const painted = await chart.evaluate((canvas: HTMLCanvasElement) => {
      const context = canvas.getContext('2d');
      if (!context) return 0;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let index = 3; index < data.length; index += 4) if (data[index]! > 0) count += 1;
      return count;
    });
    expect(painted).toBeGreaterThan(1000);
    // The Alerts card above loads on its own and grows: clicking before it has would miss.
    await expect(page.getByRole('button', { name: 'Save alerts' })).toBeVisible();
    await page.getByText('Daily figures').click();
    await expect(page.getByRole('table')).toContainText('GB');
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('camera-details-1280.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    await expect(chart).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('camera-details-390.png'), fullPage: true });

    await page.getByRole('link', { name: /Back/ }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    expect(consoleErrors).toEqual([]);
  });

  test('a paused camera shows no router report', async ({ page, signIn }) => {
    await openPortalAs(page, signIn, 'demo@example.com');
    await card(page, 'Grain store')
      .getByRole('link', { name: /More info/ })
      .click();
    await expect(page.getByText(/^This SIM is paused, so the router cannot be seen/)).toBeVisible();
    await expect(page.getByText('Currently active')).toBeVisible();
  });

  test("a second customer cannot see or open the demo customer's cameras", async ({
    page,
    signIn,
  }) => {
    await openPortalAs(page, signIn, 'demo@example.com');
    const href = await card(page, 'Top gate')
      .getByRole('link', { name: /More info/ })
      .getAttribute('href');
    const iccid = href!.split('/').pop()!;
    // Leave without logging out: the demo session is reused by other journeys.
    await page.evaluate(() => localStorage.clear());

    await openPortalAs(page, signIn, 'second@example.com');
    await expect(card(page, 'Stable yard')).toBeVisible();
    await expect(page.getByRole('article')).toHaveCount(1);
    await page.goto(`/camera/${iccid}`);
    await expect(page.getByRole('heading', { name: 'Camera not found' })).toBeVisible();
    const token = await page.evaluate(() => localStorage.getItem('token'));
    for (const path of [
      `/api/cameras/sim-info/${iccid}`,
      `/api/cameras/router-info/${iccid}`,
      `/api/data-usage/${iccid}?startDate=2026-01-01&endDate=2026-01-31`,
    ]) {
      const response = await page.request.get(path, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status()).toBe(404);
    }
    const rename = await page.request.post('/api/cameras/update-nickname', {
      headers: { authorization: `Bearer ${token}` },
      data: { simIccid: iccid, nickname: 'Mine now' },
    });
    expect(rename.status()).toBe(404);
  });
});
