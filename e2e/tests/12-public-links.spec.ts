/**
 * Public links with limits (docs/decisions/096, 100, 101) as a farmer and their visitors meet
 * them: an embed code made for one website plays there and shows "not allowed on this site"
 * elsewhere, other sites cannot borrow it (framing the farmer's page, a sandboxed frame, a
 * forged Origin), the views per site show on the livestream screen with only sites a page load
 * proved, a page left open stops when the code is revoked, and a link to share with an expiry
 * plays on its own.
 *
 * The websites are real origins: a second Chromium maps shop.example and copycat.example to this
 * machine (--host-resolver-rules), so the browser sends their Referer and Origin as it would on
 * the web. Visitors use a real browser's user agent (headless ones are not counted) and each
 * comes from a network of its own (X-Forwarded-For, which the test server trusts from loopback).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium as playwrightChromium, type Browser, type Page } from '@playwright/test';
import { chromium } from '../playwright.config.ts';
import { expect, expectAccessible, moveClockUntil, test } from '../fixtures/portal.ts';
import { expectVideoPlaying } from '../fixtures/video.ts';

const browserUserAgent =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * The websites on this machine, one server for every host name: `/` is a page with the pasted
 * code; `/frame-the-shop` frames the shop's page (a copycat showing the farmer's page inside its
 * own); `/sandboxed` tries to read the clip address from a sandboxed frame (Origin: null).
 */
async function startSites(embedCode: string, livestreamUrl: string) {
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    if (request.url === '/frame-the-shop') {
      response.end(
        page('Copycat', `<iframe src="http://shop.example:${port}/" title="Shop"></iframe>`),
      );
    } else if (request.url === '/sandboxed') {
      // What a page anywhere can do: a sandboxed frame's fetch, Origin: null.
      const script = `fetch(${JSON.stringify(livestreamUrl)}).then((r) => r.text()).then((t) => parent.postMessage('read: ' + t, '*'), (e) => parent.postMessage('refused: ' + e.name, '*'));`;
      response.end(
        page(
          'Copycat',
          `<p id="result">waiting</p><iframe sandbox="allow-scripts" title="Sandboxed" srcdoc="<script>${script.replaceAll('"', '&quot;')}</script>"></iframe><script>addEventListener('message', (event) => { document.getElementById('result').textContent = event.data; });</script>`,
        ),
      );
    } else {
      response.end(page('Farm site', embedCode));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (host: string, path = '/') => `http://${host}:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let visitorCounter = 0;

/** A visitor from a network of its own, in the browser that knows the websites' names. */
async function visit(browser: Browser, url: string, { onTestClock = false } = {}) {
  visitorCounter += 1;
  const visitor = await browser.newContext({
    userAgent: browserUserAgent,
    locale: 'en-GB',
    extraHTTPHeaders: { 'x-forwarded-for': `198.51.100.${visitorCounter + 20}` },
  });
  const page = await visitor.newPage();
  // The page's timers on a clock the test can move on (its once-a-minute check).
  if (onTestClock) await page.clock.install();
  const consoleMessages: string[] = [];
  page.on('console', (message) => consoleMessages.push(message.text()));
  const embedAnswer = page
    .waitForResponse((response) => response.url().includes('/embed/lk_'), { timeout: 15_000 })
    .catch(() => null);
  await page.goto(url);
  return {
    page,
    consoleMessages,
    embedAnswer,
    request: visitor.request,
    close: () => visitor.close(),
  };
}

async function screenshotBoth(page: Page, outputPath: (name: string) => string, name: string) {
  await page.screenshot({ path: outputPath(`${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page);
  await page.screenshot({ path: outputPath(`${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe('public links', () => {
  test('an embed code for one site plays there, cannot be borrowed, counts its views, and stops when revoked; a link expires', async ({
    page,
    context,
    signIn,
    consoleErrors,
  }, testInfo) => {
    test.setTimeout(300_000);
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
    await links.getByLabel('Websites it may play on').fill('shop.example');
    await links.getByRole('button', { name: 'Make embed code' }).click();
    const item = links.getByRole('listitem', { name: 'Hilltop shop' });
    await expect(item).toContainText('Plays on shop.example');
    await item.getByRole('button', { name: 'Copy code' }).click();
    const embedCode = await page.evaluate(() => navigator.clipboard.readText());
    expect(embedCode).toMatch(/^<iframe src="http:\/\/localhost:\d+\/embed\/lk_[A-Za-z0-9_-]+"/);
    expect(embedCode).not.toContain(pen.SIM_ICCID);
    const embedUrl = /src="([^"]+)"/.exec(embedCode)![1]!;
    const token = embedUrl.split('/embed/')[1]!;
    const livestreamUrl = `${new URL(embedUrl).origin}/api/livestreaming/livestream-url?camera_id=${token}`;

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

    const sites = await startSites(embedCode, livestreamUrl);
    const websites = await playwrightChromium.launch({
      ...chromium,
      args: [
        ...chromium.args,
        '--host-resolver-rules=MAP shop.example 127.0.0.1, MAP copycat.example 127.0.0.1',
      ],
    });
    try {
      // On the listed site: it plays, and only the listed site may frame the player.
      const onShop = await visit(websites, sites.url('shop.example'));
      await expectVideoPlaying(onShop.page.frameLocator('iframe').locator('video'));
      const policy = (await (await onShop.embedAnswer)?.allHeaders())?.['content-security-policy'];
      expect(policy).toContain('frame-ancestors http://shop.example:* https://shop.example:*;');
      await onShop.page.screenshot({ path: testInfo.outputPath('embed-allowed-1280.png') });
      await onShop.close();

      // On another site: the poster, no video.
      const onCopycat = await visit(websites, sites.url('copycat.example'));
      const frame = onCopycat.page.frameLocator('iframe');
      await expect(frame.getByText('This livestream is not allowed on this site.')).toBeVisible();
      await expect(frame.locator('video')).toHaveCount(0);
      await onCopycat.page.screenshot({
        path: testInfo.outputPath('embed-not-allowed-1280.png'),
      });
      await onCopycat.page.setViewportSize({ width: 390, height: 844 });
      await onCopycat.page.screenshot({ path: testInfo.outputPath('embed-not-allowed-390.png') });
      await onCopycat.close();

      // The copycat frames the farmer's own page: the browser refuses to show the player there
      // (every page above it must be on the list), so nothing plays and nothing is counted.
      const framing = await visit(websites, sites.url('copycat.example', '/frame-the-shop'));
      await expect
        .poll(() => framing.consoleMessages.some((text) => /frame-ancestors/.test(text)), {
          message: 'the browser refuses to frame the player inside the copycat',
        })
        .toBe(true);
      const frames = framing.page.frames().map((each) => each.url());
      expect(frames.some((url) => url.includes('/embed/'))).toBe(false);
      await framing.page.screenshot({ path: testInfo.outputPath('embed-framed-by-copycat.png') });
      await framing.close();

      // A sandboxed frame (Origin: null) cannot read the clip address, nor can a script that
      // forges the shop's Origin (with a browser's headers, so that its try is counted).
      const sandboxed = await visit(websites, sites.url('copycat.example', '/sandboxed'));
      await expect(sandboxed.page.locator('#result')).toHaveText('refused: TypeError');
      const forged = await sandboxed.request.get(livestreamUrl, {
        headers: {
          origin: sites.url('shop.example').replace(/\/$/, ''),
          'accept-language': 'en-GB',
        },
      });
      expect(forged.status()).toBe(403);
      expect(forged.headers()['cache-control']).toBe('no-store');
      expect(forged.headers()['access-control-allow-origin']).toBeUndefined();
      await sandboxed.close();

      // The counts on the livestream screen: one viewer on the shop; one refused try from the
      // copycat's page, one from the requests without a page load ("opened directly").
      await page.reload();
      await expect(item).toContainText('1 viewer');
      await expect(item).toContainText('2 refused plays');
      const perSite = item.getByRole('table', { name: /Viewers per site/ });
      await expect(
        perSite.getByRole('row', { name: new RegExp(`shop\\.example:${sites.port}`) }),
      ).toContainText('1');
      await expect(
        perSite.getByRole('row', { name: new RegExp(`copycat\\.example:${sites.port}`) }),
      ).toBeVisible();
      await expect(perSite.getByRole('row', { name: /Opened directly/ })).toBeVisible();
      await expect(perSite.getByRole('row')).toHaveCount(4);
      await expectAccessible(page);
      await screenshotBoth(page, testInfo.outputPath.bind(testInfo), 'public-links');

      // A visitor leaves the shop's page open; the farmer revokes the code: the open page stops
      // at its next check (within a minute), and the clip address it had lives five minutes.
      const leftOpen = await visit(websites, sites.url('shop.example'), { onTestClock: true });
      const playing = leftOpen.page.frameLocator('iframe').locator('video');
      await expectVideoPlaying(playing);
      const clipAddress = await playing.evaluate((video: HTMLVideoElement) => video.src);
      const expires = Number(new URL(clipAddress).searchParams.get('expires'));
      expect(expires * 1000 - Date.now()).toBeLessThanOrEqual(300_000);
      const clip = await leftOpen.request.get(clipAddress, { headers: { range: 'bytes=0-99' } });
      expect(clip.status()).toBe(206);
      expect(clip.headers()['cache-control']).toMatch(/^private, max-age=\d+$/);

      await item.getByRole('button', { name: 'Revoke' }).click();
      await expect(item).toContainText('Revoked');
      // On its own site the page may say which camera (decision 120).
      const switchedOff = leftOpen.page
        .frameLocator('iframe')
        .getByText('This link to Calving pen has been switched off. Ask the farm for a new one.');
      await moveClockUntil(leftOpen.page, 15_000, () => switchedOff.isVisible());
      await expect(playing).toHaveCount(1);
      expect(await playing.evaluate((video: HTMLVideoElement) => video.src)).toBe('');
      await leftOpen.page.screenshot({ path: testInfo.outputPath('embed-revoked-open-1280.png') });
      await leftOpen.close();

      const revoked = await visit(websites, sites.url('shop.example'));
      await expect(
        revoked.page
          .frameLocator('iframe')
          .getByText('This link to Calving pen has been switched off. Ask the farm for a new one.'),
      ).toBeVisible();
      await revoked.close();
    } finally {
      await websites.close();
      await sites.close();
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
    const neighbour = await page.context().browser()!.newContext({
      userAgent: browserUserAgent,
      locale: 'en-GB',
    });
    const direct = await neighbour.newPage();
    await direct.goto(address);
    await expectVideoPlaying(direct.locator('video'));
    await neighbour.close();
    expect(consoleErrors).toEqual([]);
  });
});
