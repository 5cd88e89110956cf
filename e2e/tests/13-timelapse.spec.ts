/**
 * The daily timelapse as the demo shows it without setup (decision 097): Calving pen's details
 * page has yesterday's timelapse, made by the worker job within a minute of the start from the
 * demo's queued day; the video loads and plays in the page, and the download is an MP4 named
 * after the camera and the day. At 1280 and 390 px, checked with axe.
 */
import fs from 'node:fs';
import { expect, expectAccessible, test } from '../fixtures/portal.ts';

const calvingPenIccid = '8944110000000001048';

/** Yesterday in the UK (Europe/London), as YYYY-MM-DD. */
function ukYesterday(): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(new Date());
  return new Date(Date.parse(`${today}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

const longDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

test.describe('daily timelapse', () => {
  test("the demo Heavy camera's details page plays and downloads yesterday's timelapse", async ({
    page,
    signIn,
    consoleErrors,
  }, testInfo) => {
    test.setTimeout(240_000);
    await signIn('demo@example.com');
    const yesterday = ukYesterday();

    await page.goto(`/camera/${calvingPenIccid}`);
    const section = page.locator('section').filter({
      has: page.getByRole('heading', { name: 'Daily timelapse' }),
    });
    await expect(section).toBeVisible({ timeout: 20_000 });
    await expect(section.getByText(/uses no extra mobile data/)).toBeVisible();
    // The job makes the demo's day within a minute or two of the server's start.
    const player = section.getByLabel(`Timelapse of ${longDay(yesterday)}`, { exact: true });
    await expect(async () => {
      if (!(await player.isVisible())) {
        await page.reload();
        await expect(player).toBeVisible({ timeout: 5_000 });
      }
    }).toPass({ timeout: 180_000, intervals: [5_000] });

    // The video loads (metadata and a frame) and has a length.
    await expect
      .poll(() => player.evaluate((video: HTMLVideoElement) => video.readyState), {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(2);
    const loaded = await player.evaluate((video: HTMLVideoElement) => ({
      duration: video.duration,
      width: video.videoWidth,
      controls: video.controls,
    }));
    expect(loaded.duration).toBeGreaterThan(0);
    expect(loaded).toMatchObject({ width: 640, controls: true });

    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('timelapse-1280.png'), fullPage: true });

    // The download is the MP4, named after the camera and the day.
    const download = section.getByRole('link', {
      name: new RegExp(`^Download the timelapse of ${longDay(yesterday)}`),
    });
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    expect(file.suggestedFilename()).toBe(`Calving-pen-${yesterday}-timelapse.mp4`);
    const saved = testInfo.outputPath(file.suggestedFilename());
    await file.saveAs(saved);
    const bytes = fs.readFileSync(saved);
    // An MP4 begins with its 'ftyp' box.
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.length).toBeGreaterThan(10_000);

    await page.setViewportSize({ width: 390, height: 844 });
    await section.scrollIntoViewIfNeeded();
    await expect(player).toBeVisible();
    const width = await player.evaluate((video) => video.getBoundingClientRect().width);
    expect(width).toBeLessThanOrEqual(390);
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('timelapse-390.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
  });

  test('a camera without a livestream has no timelapse section', async ({ page, signIn }) => {
    await signIn('demo@example.com');
    // Top gate: a Light plan, no livestream.
    await page.goto('/camera/8944110000000001014');
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole('heading', { name: 'Daily timelapse' })).toHaveCount(0);
  });
});
