/**
 * Watch a camera live (issue 27): the demo's Heavy camera plays live at once from the local demo
 * camera, at 1280 and 390 px and in both themes; the data figure moves while watching; three
 * viewers share one pull and leaving stops it; a viewer member watches their own camera and is
 * refused another; a plan without streaming Hours says which plan has them. Every page is checked
 * with axe.
 */
import type { Page, Response } from '@playwright/test';
import { expect, expectAccessible, test, waitForMail } from '../fixtures/portal.ts';
import { openPersonContext, openWithToken, tokenOf } from '../fixtures/team.ts';

const farmyard = '8944110000000001030'; // Heavy Streaming
const calvingPen = '8944110000000001048'; // Heavy Streaming
const topGate = '8944110000000001014'; // Light Streaming

const liveSection = (page: Page) =>
  page.locator('section').filter({ has: page.getByRole('heading', { name: 'Watch live' }) });
const liveVideo = (page: Page) => page.getByLabel(/^Live view of /);

/** Waits until the live video shows frames and its time has moved on by `seconds`. */
async function expectLiveFor(page: Page, seconds: number): Promise<void> {
  const video = liveVideo(page);
  await expect
    .poll(() => video.evaluate((element: HTMLVideoElement) => element.readyState), {
      timeout: 30_000,
      message: 'the live video has frames to show',
    })
    .toBeGreaterThanOrEqual(2);
  const start = await video.evaluate((element: HTMLVideoElement) => element.currentTime);
  await expect
    .poll(() => video.evaluate((element: HTMLVideoElement) => element.currentTime - 0), {
      timeout: 30_000,
      message: `the live video's time advances by ${seconds} s`,
    })
    .toBeGreaterThanOrEqual(start + seconds);
  expect(await video.evaluate((element: HTMLVideoElement) => element.videoWidth)).toBe(640);
}

/** How far behind the clock the newest segment of a playlist is (EXT-X-PROGRAM-DATE-TIME). */
async function secondsBehind(response: Response): Promise<number> {
  const text = await response.text();
  const stamps = [...text.matchAll(/#EXT-X-PROGRAM-DATE-TIME:(.+)/g)].map((match) =>
    Date.parse(match[1]!),
  );
  expect(stamps.length, 'program dates in the playlist').toBeGreaterThan(0);
  return (Date.now() - Math.max(...stamps)) / 1000;
}

async function liveStatus(page: Page, token: string, iccid: string) {
  const response = await page.request.get(`/api/live-view/${iccid}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status()).toBe(200);
  return (await response.json()) as { viewersNow: number; canWatch: boolean; reason: string };
}

test.describe('watch a camera live', () => {
  test('the Heavy camera plays live from the dashboard card at 1280 and 390 px, with what it costs', async ({
    page,
    signIn,
    consoleErrors,
  }, testInfo) => {
    test.setTimeout(180_000);
    await signIn('demo@example.com');
    const token = await tokenOf(page);

    const card = page.getByRole('article').filter({ hasText: 'Farmyard' });
    const watchLive = card.getByRole('link', { name: 'Watch live for Farmyard' });
    await expect(watchLive).toBeVisible();
    // A Light camera's card offers no Watch live.
    await expect(
      page
        .getByRole('article')
        .filter({ hasText: 'Top gate' })
        .getByRole('link', { name: /Watch live/ }),
    ).toHaveCount(0);

    const playlist = page.waitForResponse(
      (response) => response.url().includes('/index.m3u8') && response.status() === 200,
      { timeout: 30_000 },
    );
    const clickedAt = Date.now();
    await watchLive.click();
    await expect(page).toHaveURL(new RegExp(`/camera/${farmyard}$`));
    await expect
      .poll(() => liveVideo(page).evaluate((video: HTMLVideoElement) => video.readyState), {
        timeout: 30_000,
      })
      .toBeGreaterThanOrEqual(2);
    const firstPictureSeconds = (Date.now() - clickedAt) / 1000;
    const behind = await secondsBehind(await playlist);
    testInfo.annotations.push(
      { type: 'first picture (s)', description: firstPictureSeconds.toFixed(2) },
      { type: 'newest segment behind the clock (s)', description: behind.toFixed(2) },
    );
    // Issue 27 asks 3 s and 4 s on a quiet machine (bench/ measures them); journeys run beside
    // other work, so they hold a looser bound that still fails a player that does not start.
    expect(firstPictureSeconds).toBeLessThan(12);
    expect(behind).toBeLessThan(8);
    await expectLiveFor(page, 5);

    // The data this view used moves while watching.
    const section = liveSection(page);
    const data = section.getByTestId('live-view-data');
    const before = await data.textContent();
    await expect(data).not.toHaveText(before ?? '', { timeout: 20_000 });
    await expect(section.getByText('Data left this month')).toBeVisible();
    await expect(section.getByText('Live view left this month')).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('live-1280-light.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('live-1280-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });

    // Stop: the pull stops, and the page offers Watch live again.
    await section.getByRole('button', { name: 'Stop watching' }).click();
    await expect(section.getByRole('button', { name: 'Watch live' })).toBeVisible();
    await expect.poll(async () => (await liveStatus(page, token, farmyard)).viewersNow).toBe(0);

    // On a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await section.getByRole('button', { name: 'Watch live' }).click();
    await expectLiveFor(page, 5);
    await expectAccessible(page);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath('live-390-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('live-390-dark.png') });
    await section.getByRole('button', { name: 'Stop watching' }).click();
    await expect.poll(async () => (await liveStatus(page, token, farmyard)).viewersNow).toBe(0);

    // The view left the camera's latest still, with its time, on its card; a camera that
    // recorded nothing shows no picture at all.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('/dashboard');
    const still = card.getByRole('img', {
      name: /^Latest picture from Farmyard, \d\d:\d\d today$/,
    });
    await expect(still).toBeVisible({ timeout: 15_000 });
    await expect
      .poll(() => still.evaluate((image: HTMLImageElement) => image.naturalWidth))
      .toBe(640);
    await expect(
      page
        .getByRole('article')
        .filter({ hasText: 'Top gate' })
        .getByRole('img', { name: /Latest picture/ }),
    ).toHaveCount(0);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath('still-card-1280.png') });

    // A plan without streaming hours says which plan has them.
    await page.goto(`/camera/${topGate}`);
    await expect(liveSection(page)).toContainText(
      'This camera is on Light Streaming, which has no hours of live view. Heavy Streaming includes 120 hours of live view a month.',
    );
    await expect(
      liveSection(page).getByRole('link', { name: 'Change to Heavy Streaming' }),
    ).toBeVisible();
    await expectAccessible(page);
    expect(consoleErrors).toEqual([]);
  });

  test('three viewers share one pull, and it stops when they leave', async ({
    page,
    browser,
    signIn,
    consoleErrors,
  }) => {
    test.setTimeout(180_000);
    await signIn('demo@example.com');
    const token = await tokenOf(page);
    await page.goto(`/camera/${calvingPen}`);
    await liveSection(page).getByRole('button', { name: 'Watch live' }).click();
    await expectLiveFor(page, 2);

    const others = [await openPersonContext(browser), await openPersonContext(browser)];
    for (const other of others) {
      await openWithToken(other.page, token, `/camera/${calvingPen}`);
      await liveSection(other.page).getByRole('button', { name: 'Watch live' }).click();
      await expectLiveFor(other.page, 2);
    }
    // One pull: the three are the viewers of the camera's one session.
    await expect.poll(async () => (await liveStatus(page, token, calvingPen)).viewersNow).toBe(3);
    await expect(liveSection(page).getByText('3 people')).toBeVisible({ timeout: 15_000 });

    // Two close their page, one presses Stop: nobody watches, the pull stops.
    for (const other of others) {
      await other.context.close();
      expect(other.consoleErrors).toEqual([]);
    }
    await liveSection(page).getByRole('button', { name: 'Stop watching' }).click();
    await expect
      .poll(async () => (await liveStatus(page, token, calvingPen)).viewersNow, { timeout: 30_000 })
      .toBe(0);
    expect(consoleErrors).toEqual([]);
  });

  test('a viewer member watches their own camera and is refused another', async ({
    page,
    browser,
    signIn,
  }) => {
    test.setTimeout(180_000);
    await signIn('demo@example.com');
    const token = await tokenOf(page);
    const email = `live-viewer-${Date.now()}@example.com`;
    const invitedAt = new Date(Date.now() - 1000);
    const invite = await page.request.post('/api/team/invite', {
      headers: { authorization: `Bearer ${token}` },
      data: { email, role: 'viewer', allCameras: false, iccids: [farmyard], accessUntil: null },
    });
    expect(invite.status()).toBe(201);
    const message = await waitForMail(page.request, email, invitedAt);
    const link = message.text.match(/https?:\/\/\S+\/invitation\?token=[A-Za-z0-9_-]+/)?.[0];
    expect(link).toBeTruthy();

    const viewer = await openPersonContext(browser, { width: 390, height: 844 });
    await viewer.page.goto(link!);
    await expect(viewer.page).toHaveURL(/\/dashboard$/);
    await viewer.page.getByRole('link', { name: 'Watch live for Farmyard' }).click();
    await expectLiveFor(viewer.page, 3);
    // A viewer sees no switch: it is the owner's.
    await expect(viewer.page.getByLabel('Live view on for this camera')).toHaveCount(0);
    await expectAccessible(viewer.page);

    // Another camera of the account is not theirs: not found, as for any camera not theirs.
    await viewer.page.goto(`/camera/${calvingPen}`);
    await expect(viewer.page.getByRole('heading', { name: 'Camera not found' })).toBeVisible();
    const refused = await viewer.page.request.post(`/api/live-view/${calvingPen}/watch`, {
      headers: { authorization: `Bearer ${await tokenOf(viewer.page)}` },
    });
    expect(refused.status()).toBe(404);
    expect(viewer.consoleErrors.filter((text) => !text.includes('404'))).toEqual([]);
    await viewer.context.close();
  });
});
