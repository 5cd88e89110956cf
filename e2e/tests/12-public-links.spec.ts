/**
 * Public links with limits (docs/decisions/096) as a farmer meets them: an embed code made for
 * one website plays there and shows "not allowed on this site" elsewhere, the views per site
 * show on the livestream screen, a revoked code says it is switched off, and a link to share
 * with an expiry plays on its own. The visitors are a real browser's user agent: headless ones
 * are filtered out of the views (decision 096).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from '@playwright/test';
import { expect, expectAccessible, test } from '../fixtures/portal.ts';
import { expectVideoPlaying } from '../fixtures/video.ts';

const browserUserAgent =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** A website on another origin with only the pasted code in it, reached at `host`. */
async function startSite(embedCode: string, host: '127.0.0.1' | 'localhost') {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html lang="en"><head><title>Farm site</title></head><body><h1>Farm site</h1>${embedCode}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    host: `${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function visit(browser: Browser, url: string) {
  const visitor = await browser.newContext({ userAgent: browserUserAgent, locale: 'en-GB' });
  const page = await visitor.newPage();
  await page.goto(url);
  return { page, close: () => visitor.close() };
}

async function screenshotBoth(page: Page, outputPath: (name: string) => string, name: string) {
  await page.screenshot({ path: outputPath(`${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page);
  await page.screenshot({ path: outputPath(`${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe('public links', () => {
  test('an embed code for one site plays there, not elsewhere, counts its views, and is revoked; a link expires', async ({
    page,
    context,
    browser,
    signIn,
    consoleErrors,
  }, testInfo) => {
    test.setTimeout(240_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn('demo@example.com');
    const headers = {
      authorization: `Bearer ${await page.evaluate(() => localStorage.getItem('token'))}`,
    };

    // The demo's Calving pen livestream, with its demo links; a clip to play, recorded now.
    const cameras = (await (
      await page.request.get('/api/livestreaming/cameras', { headers })
    ).json()) as { cameras: { SIM_ICCID: string; nicknameInDatabase: string | null }[] };
    const pen = cameras.cameras.find((camera) => camera.nicknameInDatabase === 'Calving pen')!;
    const recorded = await page.request.post('/api/livestreaming/rtsp-now', {
      headers,
      data: {
        camera_id: pen.SIM_ICCID,
        rtsp_port: 554,
        rtsp_path: '/12',
        duration: 15,
        include_audio: false,
      },
    });
    expect(recorded.status()).toBe(200);

    await page.goto('/livestreaming');
    const card = page
      .getByRole('region', { name: 'Your livestreams' })
      .locator('section')
      .filter({ has: page.getByRole('heading', { level: 2, name: /Calving pen/ }) });
    const links = card.getByRole('region', { name: 'Public links' });
    await expect(links.getByRole('listitem', { name: 'For the vet' })).toContainText(/Works until/);
    await expect(links.getByRole('listitem', { name: 'Farm shop website' })).toContainText(
      /viewers/,
    );

    // An embed code for one website.
    await links.getByRole('radio', { name: 'Embed code for your website' }).check();
    await links.getByLabel('Name (optional)').fill('Hilltop shop');
    await links.getByLabel('Websites it may play on').fill('127.0.0.1');
    await links.getByRole('button', { name: 'Make embed code' }).click();
    const item = links.getByRole('listitem', { name: 'Hilltop shop' });
    await expect(item).toContainText('Plays on 127.0.0.1');
    await item.getByRole('button', { name: 'Copy code' }).click();
    const embedCode = await page.evaluate(() => navigator.clipboard.readText());
    expect(embedCode).toMatch(/^<iframe src="http:\/\/localhost:\d+\/embed\/lk_[A-Za-z0-9_-]+"/);
    expect(embedCode).not.toContain(pen.SIM_ICCID);

    // Wait for the clip to be ready before the visitors come.
    await expect
      .poll(
        async () => {
          const list = (await (
            await page.request.get('/api/livestreaming/cameras', { headers })
          ).json()) as {
            cameras: { SIM_ICCID: string; livestream: { latestClipAt: string | null } | null }[];
          };
          return list.cameras.find((camera) => camera.SIM_ICCID === pen.SIM_ICCID)?.livestream
            ?.latestClipAt;
        },
        { timeout: 90_000, message: 'a clip of Calving pen is ready' },
      )
      .toBeTruthy();

    // On the listed site (127.0.0.1): it plays.
    const shop = await startSite(embedCode, '127.0.0.1');
    const elsewhere = await startSite(embedCode, 'localhost');
    try {
      const onShop = await visit(browser, shop.url);
      await expectVideoPlaying(onShop.page.frameLocator('iframe').locator('video'));
      await onShop.page.screenshot({ path: testInfo.outputPath('embed-allowed-1280.png') });
      await onShop.close();

      // On another site: the poster, no video.
      const onOther = await visit(browser, elsewhere.url);
      const frame = onOther.page.frameLocator('iframe');
      await expect(frame.getByText('This livestream is not allowed on this site.')).toBeVisible();
      await expect(frame.locator('video')).toHaveCount(0);
      await onOther.page.screenshot({ path: testInfo.outputPath('embed-not-allowed-1280.png') });
      await onOther.page.setViewportSize({ width: 390, height: 844 });
      await onOther.page.screenshot({ path: testInfo.outputPath('embed-not-allowed-390.png') });
      await onOther.close();

      // The counts show on the livestream screen: one viewer on the shop, one refused elsewhere.
      await page.reload();
      await expect(item).toContainText('1 viewer');
      await expect(item).toContainText('1 refused play');
      const sites = item.getByRole('table', { name: /Viewers per site/ });
      await expect(sites.getByRole('row', { name: new RegExp(shop.host) })).toContainText('1');
      await expect(sites.getByRole('row', { name: new RegExp(elsewhere.host) })).toBeVisible();
      await expectAccessible(page);
      await screenshotBoth(page, testInfo.outputPath.bind(testInfo), 'public-links');

      // Revoked: the shop's frame says the link is switched off.
      await item.getByRole('button', { name: 'Revoke' }).click();
      await expect(item).toContainText('Revoked');
      const revoked = await visit(browser, shop.url);
      await expect(
        revoked.page.frameLocator('iframe').getByText('This link has been switched off.'),
      ).toBeVisible();
      await revoked.close();
    } finally {
      await shop.close();
      await elsewhere.close();
    }

    // A link to share for 7 days: it plays on its own page.
    await links.getByRole('radio', { name: 'Link to share (with an expiry)' }).check();
    await links.getByLabel('Name (optional)').fill('For the neighbour');
    await links.getByLabel('Works for (days)').fill('7');
    await links.getByRole('button', { name: 'Make link' }).click();
    const shared = links.getByRole('listitem', { name: 'For the neighbour' });
    await expect(shared).toContainText(/Works until/);
    await expect(shared).toContainText('Valid');
    const address = (await shared.locator('code').textContent())!;
    expect(address).toMatch(/\/embed\/lk_/);
    const direct = await visit(browser, address);
    await expectVideoPlaying(direct.page.locator('video'));
    await direct.close();
    expect(consoleErrors).toEqual([]);
  });
});
