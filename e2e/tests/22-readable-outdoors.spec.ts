import type { Page } from '@playwright/test';
import { seriousViolations } from '../fixtures/axe.ts';
import { expect, test } from '../fixtures/portal.ts';
import { cameraNamed } from './dashboard-helpers.ts';

/**
 * Readable outdoors (issue 25 item 8, decision 125): every page the demo customer sees, and the
 * sign-in page, in the light and the high-contrast dark theme, has no serious axe violation
 * (colour contrast included); at 390 px every button, link, checkbox and menu item is at least
 * 44 px tall. Read-only on the demo data.
 */
const signedInRoutes = [
  '/dashboard',
  '/notifications',
  '/livestreaming',
  '/billing',
  '/team',
  '/activity',
];
const themes = ['light', 'dark'] as const;

/** Every signed-in page: the fixed ones and the demo's Top gate's details, plan and invoices. */
async function everySignedInRoute(page: Page): Promise<string[]> {
  const topGate = await cameraNamed<{
    nicknameInDatabase: string | null;
    SIM_ICCID: string;
    STRIPE_CUSTOMER_ID: string;
  }>(page, 'Top gate');
  return [
    ...signedInRoutes,
    `/camera/${topGate.SIM_ICCID}`,
    `/subscription/${topGate.STRIPE_CUSTOMER_ID}`,
    `/invoices/${topGate.STRIPE_CUSTOMER_ID}`,
  ];
}

/** Visible interactive elements shorter than 44 px (a thumb's width) on the current page. */
async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(
      document.querySelectorAll<HTMLElement>(
        'button, a[href], input[type="checkbox"], input[type="radio"], select, [role="menuitem"]',
      ),
    )
      .filter((element) => {
        const box = element.getBoundingClientRect();
        const hidden =
          box.width === 0 || box.height === 0 || getComputedStyle(element).visibility === 'hidden';
        // A checkbox or radio counts by its label, which is what a thumb presses.
        const target = element.matches('input') ? (element.closest('label') ?? element) : element;
        return !hidden && target.getBoundingClientRect().height < 44;
      })
      .map(
        (element) =>
          `${element.tagName.toLowerCase()} "${(element.textContent ?? element.getAttribute('aria-label') ?? '').trim().slice(0, 40)}" ${Math.round(element.getBoundingClientRect().height)}px`,
      ),
  );
}

for (const theme of themes) {
  test(`the sign-in page and every signed-in page pass axe in the ${theme} theme`, async ({
    page,
    signIn,
  }) => {
    // Ten pages, each run through axe: a minute is too short when the machine is busy.
    test.setTimeout(150_000);
    await page.emulateMedia({ colorScheme: theme });
    await page.goto('/');
    await expect(page.getByLabel('E-mail address')).toBeVisible();
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(
      theme,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await signIn('demo@example.com');
    for (const route of await everySignedInRoute(page)) {
      await page.goto(route);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      // The frame and its title show while the page's code loads: judge the page, not that.
      await expect(page.getByText('Opening the page…')).toHaveCount(0);
      expect(await seriousViolations(page), route).toEqual([]);
    }
  });
}

test('a theme chosen on this device is applied to the prerendered sign-in page by the time it loads', async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.addInitScript(() => window.localStorage.setItem('farmcam-theme', 'dark'));
  await page.goto('/');
  expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
    'rgb(0, 0, 0)',
  );
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('every interactive element of the sign-in page is at least 44 px tall', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByLabel('E-mail address')).toBeVisible();
    expect(await smallTargets(page)).toEqual([]);
  });

  test('every interactive element of each signed-in page is at least 44 px tall', async ({
    page,
    signIn,
  }) => {
    await signIn('demo@example.com');
    // Every page's small targets at once, so one run lists all there are.
    const routes = await everySignedInRoute(page);
    const small: Record<string, string[]> = {};
    for (const route of routes) {
      await page.goto(route);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      // Measure the page with its data, not the frame before the answers arrive (the billing
      // page's invoice rows once passed here by not being there yet).
      await page.waitForLoadState('networkidle');
      await expect(page.getByRole('status').filter({ hasText: /^Loading/ })).toHaveCount(0);
      small[route] = await smallTargets(page);
    }
    expect(small).toEqual(Object.fromEntries(routes.map((route) => [route, []])));
  });
});
