import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium as playwrightChromium } from '@playwright/test';
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { chromium } from '../playwright.config.ts';
import { expect, expectAccessible, test, waitForLoginLink } from '../fixtures/portal.ts';

/**
 * The farmer's phone (issue 25 items 1-3, decisions 117-119): the portal installs as an app,
 * opens from the device at once, and shows what it last knew when there is no signal.
 */
const phone = { width: 390, height: 844 };

/**
 * A phone's browser with a profile of its own: Chromium offers to install only outside incognito,
 * which Playwright's usual contexts are. Signed in through the e-mailed link.
 */
async function openPhone(
  baseURL: string | undefined,
  extraHTTPHeaders: Record<string, string>,
  email = 'demo@example.com',
): Promise<{ context: BrowserContext; page: Page; close: () => Promise<void> }> {
  const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'farmcam-phone-'));
  const context = await playwrightChromium.launchPersistentContext(profile, {
    ...chromium,
    baseURL,
    viewport: phone,
    isMobile: true,
    hasTouch: true,
    extraHTTPHeaders,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const requestedAt = new Date(Date.now() - 1000);
  await page.goto('/');
  await page.getByRole('textbox', { name: 'E-mail address' }).fill(email);
  await page.getByRole('button', { name: 'Send login link' }).click();
  await expect(page.getByText('Login link sent, please check your e-mail')).toBeVisible();
  await page.goto(await waitForLoginLink(page.request, email, requestedAt));
  await expect(page).toHaveURL(/\/dashboard$/);
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await fs.rm(profile, { recursive: true, force: true });
    },
  };
}

/** Waits until the service worker controls the page and has the app in its precache. */
async function waitForServiceWorker(page: Page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) =>
        navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
      );
    }
  });
}

/** What the device keeps of the session's answers (lib/persisted-queries.ts), as saved. */
async function lastKnownOnDevice(page: Page): Promise<string | null> {
  return page.evaluate(async () => {
    // Opening a database that does not exist would create it empty: look first.
    const databases = await indexedDB.databases();
    if (!databases.some((database) => database.name === 'farmcam')) return null;
    return new Promise<string | null>((resolve, reject) => {
      const opening = indexedDB.open('farmcam');
      opening.onerror = () => reject(opening.error);
      opening.onsuccess = () => {
        const database = opening.result;
        if (!database.objectStoreNames.contains('last-known')) {
          database.close();
          resolve(null);
          return;
        }
        const reading = database
          .transaction('last-known')
          .objectStore('last-known')
          .get('last-known');
        reading.onsuccess = () => {
          database.close();
          resolve((reading.result as string | undefined) ?? null);
        };
        reading.onerror = () => reject(reading.error);
      };
    });
  });
}

async function installabilityErrors(cdp: CDPSession): Promise<string[]> {
  const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
    installabilityErrors: { errorId: string }[];
  };
  return installabilityErrors.map((error) => error.errorId);
}

test.describe("the farmer's phone", () => {
  test('the portal is installable: manifest, icons and a service worker that serves the app', async ({
    baseURL,
    request,
    extraHTTPHeaders,
  }, testInfo) => {
    const manifest = await request.get('/manifest.webmanifest');
    expect(manifest.headers()['content-type']).toContain('application/manifest+json');
    expect(manifest.headers()['cache-control']).toBe('no-cache');
    expect(await manifest.json()).toMatchObject({
      name: 'Farmcam Portal',
      start_url: '/dashboard',
      display: 'standalone',
      theme_color: '#2f6b3a',
    });
    const worker = await request.get('/sw.js');
    expect(worker.status()).toBe(200);
    // A new version must reach phones at their next visit: never kept by the HTTP cache.
    expect(worker.headers()['cache-control']).toBe('no-cache');

    const { page, close } = await openPhone(baseURL, extraHTTPHeaders ?? {});
    await waitForServiceWorker(page);
    const cdp = await page.context().newCDPSession(page);
    await expect.poll(() => installabilityErrors(cdp)).toEqual([]);
    const { url: manifestUrl } = (await cdp.send('Page.getAppManifest')) as { url: string };
    expect(new URL(manifestUrl).pathname).toBe('/manifest.webmanifest');

    // A later visit starts from the device: the shell and the scripts come from the worker.
    const fromWorker: string[] = [];
    page.on('response', (response) => {
      if (response.fromServiceWorker()) fromWorker.push(new URL(response.url()).pathname);
    });
    await page.reload();
    await expect(page.getByRole('heading', { name: 'My cameras' })).toBeVisible();
    expect(fromWorker).toContain('/dashboard');
    expect(fromWorker.some((path) => /^\/assets\/index-.+\.js$/.test(path))).toBe(true);
    // The API is never answered by the worker.
    expect(fromWorker.filter((path) => path.startsWith('/api/'))).toEqual([]);
    await page.screenshot({ path: testInfo.outputPath('installed-dashboard-390.png') });
    await close();
  });

  test('the install hint shows where the browser offers to install, and Not now is remembered', async ({
    baseURL,
    extraHTTPHeaders,
  }, testInfo) => {
    const { page, close } = await openPhone(baseURL, extraHTTPHeaders ?? {});
    await waitForServiceWorker(page);
    await page.reload();
    const hint = page.getByRole('region', { name: 'Put Farmcam Portal on your home screen' });
    await expect(hint).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('install-hint-390.png') });
    // Docked at the bottom of a desktop's window too, clear of the side menu.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: testInfo.outputPath('install-hint-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await hint.getByRole('button', { name: 'Not now' }).click();
    await expect(hint).toBeHidden();
    await page.reload();
    await expect(page.getByRole('heading', { name: 'My cameras' })).toBeVisible();
    await expect(hint).toBeHidden();
    await close();
  });

  test('the last-known cameras, camera details and invoices show offline, and actions say they need a connection', async ({
    baseURL,
    extraHTTPHeaders,
  }, testInfo) => {
    const { context, page, close } = await openPhone(baseURL, extraHTTPHeaders ?? {});
    const topGate = page.getByRole('article', { name: 'Top gate' });
    await expect(topGate).toBeVisible();
    await waitForServiceWorker(page);
    // What the farmer sees is kept on the device: the camera list, a camera, its invoices.
    await topGate.getByRole('link', { name: 'More info for Top gate' }).click();
    await expect(page.getByText('Top gate', { exact: true })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
    const cameraPath = new URL(page.url()).pathname;
    await page.goBack();
    await topGate.getByRole('link', { name: 'Invoices for Top gate' }).click();
    await expect(page.getByRole('table', { name: 'Invoices' })).toBeVisible();
    const invoicesPath = new URL(page.url()).pathname;
    await expect
      .poll(async () => {
        const saved = (await lastKnownOnDevice(page)) ?? '';
        return ['"plans"', '"sim-info"', '"invoices"'].every((part) => saved.includes(part));
      })
      .toBe(true);
    // The session token itself is never written there.
    const token = await page.evaluate(() => localStorage.getItem('token'));

    expect(await lastKnownOnDevice(page)).not.toContain(token);

    // No signal: the app starts from the device and shows what it knew, and says so.
    await context.setOffline(true);
    await page.goto('/dashboard');
    const offlineNotice = page.getByText(/^You are offline: showing what we knew at \d\d:\d\d\.$/);
    await expect(offlineNotice).toBeVisible();
    await expect(topGate).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('offline-dashboard-390.png') });
    await page.goto(cameraPath);
    await expect(page.getByText('Top gate', { exact: true })).toBeVisible();
    await expect(offlineNotice).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('offline-camera-390.png') });

    await page.goto(invoicesPath);
    await expect(page.getByRole('table', { name: 'Invoices' })).toBeVisible();
    await expect(offlineNotice).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('offline-invoices-390.png') });

    // An action says at once that it needs a connection; nothing waits to be sent later.
    await page.goto('/dashboard');
    await topGate.getByRole('button', { name: 'Edit name of Top gate' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Camera name').fill('Top gate offline');
    await dialog.getByRole('button', { name: 'Update' }).click();
    await expect(
      page.getByText('You are offline: this needs a connection, and nothing was sent.', {
        exact: false,
      }),
    ).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Update' })).toBeEnabled();
    await page.screenshot({ path: testInfo.outputPath('offline-action-390.png') });
    await page.keyboard.press('Escape');

    // Signal again, five minutes on: the kept cards show at once with their age, then refresh.
    await context.setOffline(false);
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/api/cameras/plansV2', async (route) => {
      await held;
      await route.continue();
    });
    await page.clock.setFixedTime(new Date(Date.now() + 5 * 60_000));
    await page.goto('/dashboard');
    await expect(page.getByText('Updated 5 minutes ago')).toBeVisible();
    await expect(topGate).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('updated-ago-390.png') });
    answer();
    await expect(page.getByText('Updated 5 minutes ago')).toBeHidden();
    await expect(topGate).toBeVisible();
    // The rename was never sent.
    await expect(page.getByRole('article', { name: 'Top gate offline' })).toHaveCount(0);
    await page.unroute('**/api/cameras/plansV2');

    // Logging out deletes what the device kept.
    await page.getByRole('button', { name: 'Menu' }).click();
    await page
      .getByRole('navigation', { name: 'Main menu' })
      .getByRole('button', { name: 'Logout' })
      .click();
    await expect(page).toHaveURL(/\/$/);
    await expect.poll(() => lastKnownOnDevice(page)).toBeNull();
    await close();
  });
});

test.describe("the farmer's phone, a first visit", () => {
  // A first visit has no service worker yet. Signing in lets one install, and once it controls
  // the page it answers the app's script from its cache, past the route that holds it here: the
  // page then started before the shell could be seen (a flaky run in CI).
  test.use({ serviceWorkers: 'block' });

  test('on one bar the frame paints from the HTML before the scripts, and the cards follow', async ({
    page,
    signIn,
  }, testInfo) => {
    await page.setViewportSize(phone);
    await signIn('demo@example.com');
    // Signing in showed the dashboard, and the device kept it: a first visit has nothing kept.
    // Off the app first, or its saving would write it all again.
    await page.goto('/api/healthz');
    await page.evaluate(async () => {
      localStorage.removeItem('farmcam-last-known');
      await new Promise((resolve) => {
        const deleting = indexedDB.deleteDatabase('farmcam');
        deleting.onsuccess = deleting.onerror = deleting.onblocked = resolve;
      });
    });
    // One bar with a 4x slower CPU, and the app's script held, so what paints is the HTML alone.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 400,
      downloadThroughput: 50_000,
      uploadThroughput: 50_000,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    const listRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/cameras/plansV2')
        listRequests.push(request.url());
    });
    // When the first card is put on the page, on the page's own clock (its resource timings').
    await page.addInitScript(() => {
      const watching = new MutationObserver(() => {
        if (!document.querySelector('article')) return;
        (window as unknown as { cardsAt: number }).cardsAt = performance.now();
        watching.disconnect();
      });
      watching.observe(document, { childList: true, subtree: true });
    });
    const response = await page.goto('/dashboard', { waitUntil: 'commit' });
    // The manifest is not in the HTML: the app links it once the first screen is painted.
    expect(await response?.text()).not.toContain('rel="manifest"');
    // The page's early start (decision 118) asks for the camera list before the app has arrived.
    await expect.poll(() => listRequests.length).toBe(1);
    // The app shell (decision 118): the phone's top bar with the brand and a loading line.
    await expect(
      page.getByRole('banner').getByRole('link', { name: 'Farmcam Portal' }),
    ).toBeVisible();
    await expect(page.getByText('Opening Farmcam Portal…')).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('shell-one-bar-390.png') });
    release();
    await expect(page.getByRole('article', { name: 'Top gate' })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Menu' })).toBeVisible();
    // The app used that answer: the list was asked for once.
    expect(listRequests).toHaveLength(1);
    await page.screenshot({ path: testInfo.outputPath('cards-one-bar-390.png') });
    // Until the cards were on the page, the bar carried only what they need (decision 175): no
    // logo file, nothing kept from a visit there was none of, no toasts' code. They follow once
    // the screen is painted, with the manifest that makes the page installable.
    const extras = () =>
      page.evaluate(() => {
        const { cardsAt } = window as unknown as { cardsAt: number };
        return performance
          .getEntriesByType('resource')
          .filter((entry) => /\/logo\.svg|\/icons\/|keep-on-device|toastify/.test(entry.name))
          .map((entry) => ({
            file: new URL(entry.name).pathname.replace(/-[\w-]{8}\.(js|css)$/, '.$1'),
            isAfterCards: entry.startTime > cardsAt,
          }));
      });
    await expect
      .poll(async () => (await extras()).map(({ file }) => file).sort())
      .toEqual([
        '/assets/keep-on-device.js',
        '/assets/toastify-with-styles.css',
        '/assets/toastify-with-styles.js',
      ]);
    expect((await extras()).every(({ isAfterCards }) => isAfterCards)).toBe(true);
    await expect(page.locator('head link[rel="manifest"]')).toHaveAttribute(
      'href',
      '/manifest.webmanifest',
    );
  });
});
