/**
 * Livestream screens that tell the viewer why (issue 24 item 7, decisions 120 and 121): a camera
 * that already streams offers Manage livestream (its schedule, code and links) instead of the
 * set-up wizard; its views chart says "no views yet" rather than a dashed line; site names wrap
 * between their parts at 390 px; a link's page says why it shows nothing (no clip yet and when the
 * next is due, switched off), tries again by itself after a network failure, and stops once the
 * farm revokes the link, naming the camera only where the page may play.
 *
 * Own data: the demo's Calving pen livestream is only read; the links this journey makes are its
 * own (labelled "Journey 21 …") and it revokes them itself, so it runs in any order.
 */
import type { Page } from '@playwright/test';
import { expect, expectAccessible, moveClockUntil, test } from '../fixtures/portal.ts';
import { card, openPortalAs, screensAtBothWidths } from './dashboard-helpers.ts';

const owner = 'demo@example.com';
const browserUserAgent =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The page shows a clip, or says why not: the camera, and when the next clip is due. */
async function expectClipOrReason(page: Page) {
  const video = page.locator('video');
  const status = page.locator('.status-text');
  await expect
    .poll(
      async () => {
        const isPlaying = await video.evaluate(
          (element: HTMLVideoElement) => element.readyState >= 2 && !element.paused,
        );
        if (isPlaying) return 'playing';
        const text = (await status.textContent()) ?? '';
        return /^Calving pen has no clip yet\. The first one is due at \d\d:\d\d (today|tomorrow|on \w{3} \d{1,2} \w{3}) \(UK time\) and plays here by itself\.$/.test(
          text,
        )
          ? 'no clip yet'
          : `other: ${text}`;
      },
      { timeout: 60_000 },
    )
    .toMatch(/^(playing|no clip yet)$/);
}

test.describe('livestream screens that tell the viewer why', () => {
  test('Manage livestream, and a link page that says why, retries, and stops when revoked', async ({
    page,
    browser,
    signIn,
    consoleErrors,
  }, testInfo) => {
    test.setTimeout(240_000);
    await openPortalAs(page, signIn, owner);

    // The dashboard offers Manage livestream for a camera that already streams.
    const pen = card(page, 'Calving pen');
    await expect(pen.getByRole('link', { name: /^Setup Livestreaming/ })).toHaveCount(0);
    await pen.getByRole('link', { name: 'Manage livestream for Calving pen' }).click();
    await expect(page).toHaveURL(/\/livestreaming\/manage\/\d{19}$/);
    await expect(
      page.getByRole('heading', { level: 1, name: 'Manage livestream — Calving pen' }),
    ).toBeVisible();
    await expect(page.getByText('Schedule', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Copy Code', exact: true })).toBeVisible();
    const links = page.getByRole('region', { name: 'Public links' });
    await expect(links.getByRole('listitem', { name: 'Farm shop website' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Set Up Camera' })).toHaveCount(0);
    // Views: bars when there are some, a sentence when none (never a dashed row of empty bars).
    const chartText = page.getByText(/views? in the last 14 days/).first();
    await expect(chartText).toBeVisible();

    // The per-site table at 390 px: the site's name wraps between its parts, never mid-word.
    const siteCell = page.getByRole('rowheader', { name: /hillside-farm-shop/ }).first();
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(siteCell).toBeVisible();
    const lines = await siteCell.evaluate((cell) => {
      // Each line's text, from the rectangles of every character.
      const range = document.createRange();
      const text = cell.textContent ?? '';
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      const tops: { top: number; char: string }[] = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let index = 0; index < (node.textContent ?? '').length; index += 1) {
          range.setStart(node, index);
          range.setEnd(node, index + 1);
          tops.push({
            top: Math.round(range.getBoundingClientRect().top),
            char: node.textContent![index]!,
          });
        }
      }
      const byLine = new Map<number, string>();
      for (const { top, char } of tops) byLine.set(top, (byLine.get(top) ?? '') + char);
      return { text, lines: [...byLine.values()] };
    });
    expect(lines.text).toBe('www.hillside-farm-shop.example');
    // Every line ends at a dot or a hyphen, or is the name's end.
    for (const line of lines.lines.slice(0, -1)) expect(line).toMatch(/[.-]$/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectAccessible(page);
    await screensAtBothWidths(page, testInfo, 'manage-livestream');

    // A link of the journey's own, to share for a day.
    await links.getByRole('radio', { name: 'Link to share (with an expiry)' }).check();
    await links.getByLabel('Name (optional)').fill('Journey 21 neighbour');
    await links.getByLabel('Works for (days)').fill('1');
    await links.getByRole('button', { name: 'Make link' }).click();
    const item = links.getByRole('listitem', { name: 'Journey 21 neighbour' });
    await expect(item).toContainText(/Works until/);
    const address = (await item.locator('code').textContent())!.trim();
    expect(address).toMatch(/\/embed\/lk_/);

    // A visitor opens it (a real browser's user agent: headless ones are not counted).
    const visitorContext = await browser.newContext({
      userAgent: browserUserAgent,
      locale: 'en-GB',
    });
    const visitor = await visitorContext.newPage();
    // The page's timers run on a clock the test can move on: its back-off and its once-a-minute
    // check are waited for without waiting out the minutes.
    await visitor.clock.install();
    try {
      // The network fails for the first tries: the page says so and tries again by itself.
      let failures = 0;
      let tries = 0;
      await visitor.route('**/api/livestreaming/livestream-url**', async (route) => {
        tries += 1;
        if (failures < 2) {
          failures += 1;
          await route.abort('internetdisconnected');
        } else {
          await route.continue();
        }
      });
      await visitor.goto(address);
      await expect(visitor.locator('.status-text')).toHaveText(
        'The livestream could not be reached. This page tries again by itself.',
      );
      await visitor.screenshot({ path: testInfo.outputPath('link-unreachable-1280.png') });
      // Backing off (5 s, then 10 s): the third try goes through, with no reload.
      await moveClockUntil(visitor, 5_000, () => tries >= 3);
      await expectClipOrReason(visitor);
      expect(failures).toBe(2);
      await visitor.screenshot({ path: testInfo.outputPath('link-open-1280.png') });
      await visitor.setViewportSize({ width: 390, height: 844 });
      await visitor.screenshot({ path: testInfo.outputPath('link-open-390.png') });
      await visitor.setViewportSize({ width: 1280, height: 800 });

      // The farmer revokes it: the open page stops at its next check and says why, by name.
      await item.getByRole('button', { name: 'Revoke' }).click();
      await expect(item).toContainText('Revoked');
      const revoked = visitor.getByText(
        'This link to Calving pen has been switched off. Ask the farm for a new one.',
      );
      await moveClockUntil(visitor, 15_000, () => revoked.isVisible());
      expect(await visitor.locator('video').evaluate((video: HTMLVideoElement) => video.src)).toBe(
        '',
      );
      await visitor.screenshot({ path: testInfo.outputPath('link-revoked-1280.png') });
      await visitor.setViewportSize({ width: 390, height: 844 });
      await visitor.screenshot({ path: testInfo.outputPath('link-revoked-390.png') });

      // Final: the page stops asking (a revoked link does not come back by waiting).
      let asked = 0;
      visitor.on('request', (request) => {
        if (request.url().includes('/api/livestreaming/livestream-url')) asked += 1;
      });
      await visitor.clock.runFor(10 * 60_000);
      expect(asked).toBe(0);
    } finally {
      await visitorContext.close();
    }
    expect(consoleErrors).toEqual([]);
  });
});
