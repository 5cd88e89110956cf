/**
 * Debian's Chromium through playwright-core, for the scenarios that drive a page (phone,
 * dashboard-scale). Lighthouse starts its own through chrome-launcher (03-lighthouse.ts).
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { onAbnormalExit } from './processes.ts';

const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';

/** Runs `use` with a fresh browser, closed after it, and on Ctrl-C or a crash of the bench. */
export async function withChromium<Result>(
  use: (browser: Browser) => Promise<Result>,
): Promise<Result> {
  const browser = await chromium.launch({
    executablePath: chromePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  const forget = onAbnormalExit(() => void browser.close());
  try {
    return await use(browser);
  } finally {
    await browser.close();
    forget();
  }
}

/** The session as the SPA keeps it after the e-mailed link (apps/web/src/lib/auth-store.ts). */
export async function keepSession(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/api/healthz`);
  await page.evaluate((value) => localStorage.setItem('token', value), token);
}
