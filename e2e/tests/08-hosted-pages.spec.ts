import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, expectAccessible, test, waitForLoginLink } from '../fixtures/portal.ts';

/**
 * The local billing engine's hosted pages on a phone (docs/decisions/027): at 390 px nothing is
 * wider than the screen, the pay or save button is in view, axe finds nothing serious, and no
 * text of the address is shown. Each page is also photographed at 1280 and 390 px.
 */

interface Camera {
  SIM_ICCID: string;
  nicknameInDatabase: string | null;
  STRIPE_CUSTOMER_ID: string | null;
}
interface Invoice {
  status: string;
  hosted_invoice_url: string | null;
}

let api: APIRequestContext;
let authorization: Record<string, string>;

test.beforeAll(async ({ playwright, portalServers }, testInfo) => {
  api = await playwright.request.newContext({
    baseURL: await portalServers.urlFor(testInfo),
    extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.248' },
  });
  const requestedAt = new Date(Date.now() - 1000);
  await api.post('/api/auth/request-login', { data: { email: 'demo@example.com' } });
  const link = await waitForLoginLink(api, 'demo@example.com', requestedAt);
  const login = await api.get(`/api/auth/login?token=${link.split('/login/')[1]}`);
  authorization = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
});
test.afterAll(() => api.dispose());

async function cameras(): Promise<Camera[]> {
  const response = await api.get('/api/cameras/plansV2', { headers: authorization });
  return ((await response.json()) as { cameras: Camera[] }).cameras;
}

/**
 * Nothing sticks out sideways, and `button` can be scrolled into the screen; with
 * `isOnFirstScreen`, it is on the screen as the page opens, before any scrolling.
 */
async function expectFitsPhone(page: Page, button: Locator, isOnFirstScreen: boolean) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
  if (isOnFirstScreen) {
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await expect(button).toBeInViewport({ ratio: 1 });
  }
  await button.scrollIntoViewIfNeeded();
  await expect(button).toBeInViewport({ ratio: 1 });
  const box = (await button.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
}

async function checkPage(
  page: Page,
  testInfo: { outputPath: (name: string) => string },
  name: string,
  url: string,
  button: (page: Page) => Locator,
  { isOnFirstScreen = false } = {},
) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(url);
  await expect(button(page)).toBeVisible();
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath(`${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expectFitsPhone(page, button(page), isOnFirstScreen);
  await expectAccessible(page);
  await page.screenshot({ path: testInfo.outputPath(`${name}-390.png`), fullPage: true });
}

test.describe('hosted billing pages on a phone', () => {
  test('the billing portal', async ({ page }, testInfo) => {
    const camera = (await cameras()).find((row) => row.nicknameInDatabase === 'Fuel tank')!;
    const response = await api.get(
      `/api/billing/create-portal-session?customerId=${camera.STRIPE_CUSTOMER_ID}`,
      { headers: { ...authorization, 'idempotency-key': `e2e-portal-${Date.now()}` } },
    );
    const { url } = (await response.json()) as { url: string };
    await checkPage(page, testInfo, 'portal', url, (current) =>
      current.getByRole('button', { name: 'Add card' }),
    );
    // A link cannot make the page say anything: only our own sentences, by their code.
    await page.goto(`${url}?error=${encodeURIComponent('Call 0800 000 000 now')}`);
    await expect(page.getByRole('heading', { name: 'Billing' })).toBeVisible();
    await expect(page.getByText('Call 0800')).toHaveCount(0);
  });

  test('the hosted invoice page', async ({ page }, testInfo) => {
    // An open invoice when there is one (a fresh database), else the newest.
    let chosen: Invoice | undefined;
    for (const camera of await cameras()) {
      if (!camera.STRIPE_CUSTOMER_ID) continue;
      const response = await api.get(`/api/invoices/fetch-invoices/${camera.STRIPE_CUSTOMER_ID}`, {
        headers: authorization,
      });
      const { invoices } = (await response.json()) as { invoices: Invoice[] };
      const open = invoices.find((invoice) => invoice.status === 'open');
      if (open) {
        chosen = open;
        break;
      }
      chosen ??= invoices.find((invoice) => invoice.hosted_invoice_url);
    }
    const isOpen = chosen!.status === 'open';
    // The first pay button (the card on file, else the new card's) is on a phone's first screen.
    await checkPage(
      page,
      testInfo,
      'hosted-invoice',
      chosen!.hosted_invoice_url!,
      (current) =>
        isOpen
          ? current.getByRole('button', { name: /^Pay / }).first()
          : current.getByRole('link', { name: /^Download PDF/ }),
      { isOnFirstScreen: isOpen },
    );
    if (isOpen) {
      await expect(page.getByRole('button', { name: /^Pay / }).last()).toBeVisible();
    }
  });

  test('the checkout, and the thank-you page of an order that does not exist', async ({
    page,
  }, testInfo) => {
    const response = await api.post('/api/activation/checkout', {
      data: {
        pricing_table_id: 'local_uk',
        price_id: 'price_standard_month_uk',
        client_reference_id: '8944702345135332725',
        customer_email: 'phone.check@example.com',
      },
    });
    expect(response.status()).toBe(200);
    const { url } = (await response.json()) as { url: string };
    await checkPage(page, testInfo, 'checkout', url, (current) =>
      current.getByRole('button', { name: /^Subscribe and pay/ }),
    );
    await page.goto(`${url}?error=${encodeURIComponent('<b>Your bank needs your PIN</b>')}`);
    await expect(page.getByText('Your bank needs your PIN')).toHaveCount(0);

    await page.goto('/order-confirmation?order=ord_doesNotExist1234&product=Evil');
    await expect(page.getByText('We could not find this order.')).toBeVisible();
    await expect(page.getByText(/has been activated/)).toHaveCount(0);
    await expect(page.getByText('Evil')).toHaveCount(0);
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('order-not-found-390.png'), fullPage: true });
  });
});
