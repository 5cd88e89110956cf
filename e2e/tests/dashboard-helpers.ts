import type { Page } from '@playwright/test';

/** A camera card by its name. */
export const card = (page: Page, name: string) => page.getByRole('article', { name });

/**
 * Login links are limited to 5 per e-mail per 15 minutes, so each customer signs in through the
 * e-mailed link once per run and later journeys reuse the session token, as a returning visitor
 * would (the token is restored from local storage).
 */
const sessionTokens = new Map<string, string>();
export async function openPortalAs(
  page: Page,
  signIn: (email: string) => Promise<void>,
  email: string,
) {
  const token = sessionTokens.get(email);
  if (token) {
    await page.goto('/');
    await page.evaluate((value) => localStorage.setItem('token', value), token);
    await page.goto('/dashboard');
    return;
  }
  await signIn(email);
  sessionTokens.set(email, (await page.evaluate(() => localStorage.getItem('token')))!);
}
