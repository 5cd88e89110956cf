import type { Page, TestInfo } from '@playwright/test';
import { expect, expectAccessible, test } from '../fixtures/portal.ts';

/** A camera card by its name. */
export const card = (page: Page, name: string) => page.getByRole('article', { name });

/**
 * Login links are limited to 5 per e-mail per 15 minutes, so each customer signs in through the
 * e-mailed link once per spec file (each has its own server) and later tests reuse the session
 * token, as a returning visitor would (the token is restored from local storage).
 */
const sessionTokens = new Map<string, string>();
export async function openPortalAs(
  page: Page,
  signIn: (email: string) => Promise<void>,
  email: string,
) {
  // Per spec file: each file has its own server (decision 150), where another's token is unknown.
  const key = `${test.info().file} ${email}`;
  const token = sessionTokens.get(key);
  if (token) {
    await page.goto('/');
    await page.evaluate((value) => localStorage.setItem('token', value), token);
    await page.goto('/dashboard');
    return;
  }
  await signIn(email);
  sessionTokens.set(key, (await page.evaluate(() => localStorage.getItem('token')))!);
}

/**
 * A camera of the session's plansV2 answer by its nickname; the session is the page's own
 * (its stored token) unless `token` names another.
 */
export async function cameraNamed<Camera extends { nicknameInDatabase: string | null }>(
  page: Page,
  nickname: string,
  token?: string,
): Promise<Camera> {
  const bearer = token ?? (await page.evaluate(() => localStorage.getItem('token')));
  const response = await page.request.get('/api/cameras/plansV2', {
    headers: { authorization: `Bearer ${bearer}` },
  });
  expect(response.status()).toBe(200);
  const camera = ((await response.json()) as { cameras: Camera[] }).cameras.find(
    (candidate) => candidate.nicknameInDatabase === nickname,
  );
  if (!camera) throw new Error(`No camera called ${nickname}`);
  return camera;
}

/** Screenshots at 1280 and 390 px, each checked with axe and for sideways scrolling. */
export async function screensAtBothWidths(page: Page, testInfo: TestInfo, name: string) {
  const original = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await expectAccessible(page);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `${name} fits ${viewport.width} px`,
    ).toBeLessThanOrEqual(viewport.width);
    await page.screenshot({
      path: testInfo.outputPath(`${name}-${viewport.width}.png`),
      fullPage: true,
    });
  }
  await page.setViewportSize(original);
}
