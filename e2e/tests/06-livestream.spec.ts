/**
 * Livestreaming as a new user meets it: the marketing page with a live demo from the local demo
 * camera, the three-step setup with a preview that really plays, the embed code copied into a
 * page on another origin where it plays the latest clip, and the refusals.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { expect, expectAccessible, test } from '../fixtures/portal.ts';
import { expectVideoPlaying } from '../fixtures/video.ts';

const farmyardIccid = '8944110000000001030';
const stableYardIccid = '8944110000000002012';

async function screenshotBoth(page: Page, outputPath: (name: string) => string, name: string) {
  await page.screenshot({ path: outputPath(`${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page);
  await page.screenshot({ path: outputPath(`${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** A website of the customer's on another origin, with only the pasted code in it. */
async function startCustomerSite(embedCode: string) {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html lang="en"><head><title>Hilltop Farm Shop</title></head><body><h1>Hilltop Farm Shop</h1><p>Live from the farm:</p>${embedCode}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface PlanCamera {
  nicknameInDatabase: string | null;
  SubStatus: string;
  stripeSubscription: { productName: string | null } | null;
}

const bearer = async (page: Page) => ({
  authorization: `Bearer ${await page.evaluate(() => localStorage.getItem('token'))}`,
});

test.describe('livestreaming', () => {
  test('a new user sets up the demo Heavy camera; the code plays on another origin', async ({
    page,
    context,
    signIn,
    consoleErrors,
  }, testInfo) => {
    test.setTimeout(300_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn('demo@example.com');

    // The marketing page, from the navigation, with a live demo of the demo camera.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /Livestreaming/ })
      .click();
    await expect(page).toHaveURL(/\/livestreaming$/);
    await expect(page.getByRole('heading', { name: 'Benefits' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'How it works' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Requirements' })).toBeVisible();
    await expectVideoPlaying(page.getByTestId('livestream-demo'), 90_000);
    const setupVideo = page.getByLabel('Video: setting up a livestream in the portal');
    await expect
      .poll(() => setupVideo.evaluate((element: HTMLVideoElement) => element.readyState))
      .toBeGreaterThanOrEqual(1);
    expect(
      await setupVideo.evaluate((element: HTMLVideoElement) => element.duration),
    ).toBeGreaterThan(10);
    await expectAccessible(page);
    await screenshotBoth(page, testInfo.outputPath.bind(testInfo), 'livestreaming');

    // Step 1: only the active Heavy cameras are offered.
    await page.getByRole('link', { name: 'Set Up Livestream' }).first().click();
    await expect(page).toHaveURL(/\/livestreaming\/setup$/);
    await expect(page.getByRole('heading', { name: 'Setup Livestreaming' })).toBeVisible();
    // Exactly the cameras on an active Heavy plan (other journeys may have changed some plans).
    const plans = await page.request.get('/api/cameras/plansV2', { headers: await bearer(page) });
    const eligible = ((await plans.json()) as { cameras: PlanCamera[] }).cameras.filter(
      (camera) =>
        camera.SubStatus === 'active' &&
        /heavy/i.test(camera.stripeSubscription?.productName ?? ''),
    );
    expect(eligible.map((camera) => camera.nicknameInDatabase)).toEqual(
      expect.arrayContaining(['Farmyard', 'Calving pen']),
    );
    await expect(page.getByRole('radio')).toHaveCount(eligible.length);
    await expect(page.getByRole('radio', { name: /Old dairy|Grain store|Fuel tank/ })).toHaveCount(
      0,
    );
    await page.getByRole('radio', { name: /Farmyard/ }).check();
    await expectAccessible(page);
    await screenshotBoth(page, testInfo.outputPath.bind(testInfo), 'setup-select');
    await page.getByRole('button', { name: 'Set Up Camera' }).click();
    await expect(page.getByRole('progressbar', { name: 'Camera setup progress' })).toBeVisible();

    // Step 2: defaults, a change, and the data it will use.
    await expect(page.getByRole('heading', { name: 'Configure Livestreaming' })).toBeVisible({
      timeout: 20_000,
    });
    await expect(page.getByRole('radio', { name: 'SD' })).toBeChecked();
    await expect(page.getByRole('radio', { name: /HD/ })).toBeDisabled();
    await expect(page.getByText('Coming Soon')).toBeVisible();
    await expect(page.getByRole('radio', { name: '15 seconds' })).toBeChecked();
    await expect(page.getByRole('button', { name: '09:00' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await expect(page.getByRole('button', { name: 'Saturday' })).toHaveAttribute(
      'aria-pressed',
      'false',
    );
    await page.getByRole('radio', { name: '30 seconds' }).check();
    await page.getByRole('button', { name: 'Saturday' }).click();
    await expect(page.getByText(/of mobile data a month/)).toContainText('50 GB allowance');
    await expectAccessible(page);
    await screenshotBoth(page, testInfo.outputPath.bind(testInfo), 'setup-configure');
    await page.getByRole('button', { name: 'Start Livestream' }).click();

    // Step 3: active, with a preview that really plays.
    await expect(page.getByRole('heading', { name: 'Live Stream Active' })).toBeVisible({
      timeout: 20_000,
    });
    // "Streaming" only once the first clip exists (decision 046); until then it says so.
    await expect(page.getByText(/first clip is being recorded now/)).toBeVisible();
    await expect(page.getByText('The preview lasts only 5 seconds.')).toBeVisible();
    await expectVideoPlaying(page.getByTestId('livestream-preview'));
    await expect(page.getByRole('heading', { name: 'Important' })).toBeVisible();

    await page.getByRole('button', { name: 'Copy Code' }).click();
    await expect(page.getByRole('button', { name: 'Copied!' })).toBeVisible();
    const embedCode = await page.evaluate(() => navigator.clipboard.readText());
    expect(embedCode).toMatch(/^<iframe src="http:\/\/localhost:\d+\/embed\/ls_[A-Za-z0-9_-]{22}"/);
    expect(embedCode).not.toContain(farmyardIccid);
    await expect(page.getByRole('button', { name: 'Copy Code' })).toBeVisible({ timeout: 4000 });

    const sharedAt = new Date(Date.now() - 1000);
    await page.getByLabel(/^E-mail address/).fill('webmaster@hilltop-farm.example');
    await page.getByRole('button', { name: 'Share via Email' }).click();
    await expect(page.getByRole('button', { name: 'Shared!' })).toBeVisible();
    await expect(page.getByText('Livestream code shared successfully!')).toBeVisible();
    await expect(page.getByLabel(/^E-mail address/)).toHaveValue('');
    const outbox = await page.request.get('/dev/outbox?to=webmaster@hilltop-farm.example&limit=1');
    const [message] = (await outbox.json()) as { text: string; createdAt: string }[];
    expect(new Date(message!.createdAt) >= sharedAt).toBe(true);
    expect(message!.text).toContain(embedCode);
    // The 30-second first clip (recorded 2 s longer, then cut to length) is ready.
    // 30 s of real time from the camera, then stored: on a busy machine that takes a while.
    await expect(page.getByText('Farmyard is now streaming')).toBeVisible({ timeout: 120_000 });
    await expectAccessible(page);
    await screenshotBoth(page, testInfo.outputPath.bind(testInfo), 'setup-active');

    // The code, pasted into a website on another origin, plays the latest clip.
    const site = await startCustomerSite(embedCode);
    try {
      const visitor = await context.newPage();
      await visitor.goto(site.url);
      await expect(visitor.getByRole('heading', { name: 'Hilltop Farm Shop' })).toBeVisible();
      const embedded = visitor.frameLocator('iframe').locator('video');
      await expectVideoPlaying(embedded);
      expect(
        await embedded.evaluate((element: HTMLVideoElement) => [
          element.muted,
          element.loop,
          element.autoplay,
        ]),
      ).toEqual([true, true, true]);
      await visitor.screenshot({ path: testInfo.outputPath('embed-other-origin-1280.png') });
      await visitor.close();
    } finally {
      await site.close();
    }

    // The portal now shows the livestream, seen on a website, with its view.
    await page.goto('/livestreaming');
    // Farmyard's card: the demo's Calving pen livestream (with its public links) is there too.
    const card = page
      .getByRole('region', { name: 'Your livestreams' })
      .locator('section')
      .filter({ has: page.getByRole('heading', { level: 2, name: /Farmyard/ }) });
    await expect(card.getByText('Farmyard')).toBeVisible();
    await expect(card.getByText('Active')).toBeVisible();
    await expect(card.getByText(/1 view in the last 14 days/)).toBeVisible();
    await expect(card.getByText('Not yet')).toHaveCount(0);
    await expect(card.getByText(/Monday to Saturday/)).toBeVisible();
    await screenshotBoth(page, testInfo.outputPath.bind(testInfo), 'livestreaming-managed');

    // Switched off later, from the same card.
    await card.getByRole('button', { name: 'Switch off' }).click();
    await expect(card.getByRole('button', { name: 'Switch on' })).toBeVisible();
    await expect(card.getByRole('definition').filter({ hasText: /^Off$/ })).toBeVisible();
    await card.getByRole('button', { name: 'Switch on' }).click();
    await expect(card.getByRole('button', { name: 'Switch off' })).toBeVisible();
    await expect(card.getByText('Active')).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });

  test('cameras without an active Heavy plan, and other customers’ cameras, are refused', async ({
    page,
    signIn,
  }) => {
    // second@example.com has one camera, on the Standard plan.
    await signIn('second@example.com');
    const headers = await bearer(page);
    const setUp = (iccid: string) =>
      page.request.post('/api/livestreaming/setup-camera', {
        headers,
        data: { sim_number: iccid, ports: [554] },
      });
    const standard = await setUp(stableYardIccid);
    expect(standard.status()).toBe(422);
    expect((await standard.json()).message).toContain('Heavy Streaming plan');
    const recordStandard = await page.request.post('/api/livestreaming/rtsp-now', {
      headers,
      data: {
        camera_id: stableYardIccid,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 5,
        include_audio: false,
      },
    });
    expect(recordStandard.status()).toBe(422);
    // Another customer's Heavy camera is not there at all.
    expect((await setUp(farmyardIccid)).status()).toBe(404);
    const list = await page.request.get('/api/livestreaming/cameras', { headers });
    expect((await list.json()).cameras).toEqual([]);

    await page.goto('/livestreaming/setup');
    await expect(
      page.getByRole('heading', { name: 'No Heavy Streaming Cameras Found' }),
    ).toBeVisible();
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Back to Dashboard' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
