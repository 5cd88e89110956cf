/**
 * The test clock outside production: open without sign-in, but only to the portal's own pages
 * and to scripts, never to another site's page posting through a visitor's browser (CSRF).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestContext,
  testPublicUrl,
  type TestContext,
} from '../../../apps/server/test/helpers/test-app.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
});
afterAll(() => context.close());

const advance = (headers: Record<string, string>, form = true) =>
  context.app.inject({
    method: 'POST',
    url: '/billing-engine/test-clock/advance',
    headers: {
      'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
      ...headers,
    },
    payload: form ? 'days=1' : JSON.stringify({ days: 1 }),
  });

describe('test clock', () => {
  it('is served without sign-in', async () => {
    const page = await context.app.inject({ method: 'GET', url: '/billing-engine/test-clock' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Billing time is');
  });

  it("moves for the portal's own page and for scripts", async () => {
    const fromPortal = await advance({ origin: testPublicUrl, 'sec-fetch-site': 'same-origin' });
    expect(fromPortal.statusCode).toBe(303);
    expect(fromPortal.headers.location).toMatch(/^\/billing-engine\/test-clock\?notice=/);
    const fromScript = await advance({}, false);
    expect(fromScript.statusCode).toBe(200);
    expect(fromScript.json<{ renewed: number }>().renewed).toEqual(expect.any(Number));
    const typedInAddressBar = await advance({ 'sec-fetch-site': 'none' });
    expect(typedInAddressBar.statusCode).toBe(303);
  });

  it.each([
    { case: 'another origin', headers: { origin: 'https://evil.example' } },
    { case: 'another port of the same host', headers: { origin: `${testPublicUrl}:8080` } },
    { case: 'an opaque origin (sandboxed frame)', headers: { origin: 'null' } },
    { case: 'no Origin but a cross-site fetch', headers: { 'sec-fetch-site': 'cross-site' } },
    { case: 'no Origin but a sibling site', headers: { 'sec-fetch-site': 'same-site' } },
  ])('refuses a request from $case with 403', async ({ headers }) => {
    const before = await context.app.inject({ method: 'GET', url: '/billing-engine/test-clock' });
    for (const url of ['/billing-engine/test-clock/advance', '/billing-engine/test-clock/run']) {
      const response = await context.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: 'months=1',
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        code: 'FORBIDDEN',
        message: `The test clock can only be moved from the portal's own pages at ${testPublicUrl}.`,
      });
    }
    const after = await context.app.inject({ method: 'GET', url: '/billing-engine/test-clock' });
    const billingTime = (body: string) => /Billing time is <strong>([^<]+)</.exec(body)?.[1];
    expect(billingTime(after.body)).toBe(billingTime(before.body));
  });
});

describe('test clock input', () => {
  const refusal = {
    code: 'VALIDATION_FAILED',
    message:
      'Move the clock by a whole number of days (1 to 730) or of months (1 to 24), one of the two.',
  };

  it.each([
    { months: 1000 },
    { months: 25 },
    { days: 731 },
    { days: 0 },
    { days: -3 },
    { days: 1.5 },
    { days: 'ten' },
    { days: '1e3' },
    { days: null },
    { days: [1] },
    { days: 1, months: 1 },
    {},
  ])('refuses %j with 400 and moves nothing', async (body) => {
    const before = await context.app.inject({ method: 'GET', url: '/billing-engine/test-clock' });
    const response = await context.app.inject({
      method: 'POST',
      url: '/billing-engine/test-clock/advance',
      payload: body,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(refusal);
    const after = await context.app.inject({ method: 'GET', url: '/billing-engine/test-clock' });
    const billingTime = (page: string) => /Billing time is <strong>([^<]+)</.exec(page)?.[1];
    expect(billingTime(after.body)).toBe(billingTime(before.body));
  });

  it('refuses a bad value posted by a form the same way', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/billing-engine/test-clock/advance',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'months=1000',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(refusal);
  });

  it('takes two moves at once one after the other, each replayed in full', async () => {
    const start = context.services.billing.provider.now().getTime();
    const moves = await Promise.all(
      [3, 4].map((days) =>
        context.app.inject({
          method: 'POST',
          url: '/billing-engine/test-clock/advance',
          payload: { days },
        }),
      ),
    );
    expect(moves.map((move) => move.statusCode)).toEqual([200, 200]);
    expect(context.services.billing.provider.now().getTime() - start).toBe(7 * 86_400_000);
  });

  it('moves by whole calendar months and by days at the limits', async () => {
    const start = new Date(context.services.billing.provider.now());
    const byMonths = await context.app.inject({
      method: 'POST',
      url: '/billing-engine/test-clock/advance',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'months=24',
    });
    expect(byMonths.statusCode).toBe(303);
    const afterMonths = context.services.billing.provider.now();
    expect(afterMonths.getUTCFullYear() - start.getUTCFullYear()).toBe(2);
    expect(afterMonths.getUTCMonth()).toBe(start.getUTCMonth());
    const byDays = await context.app.inject({
      method: 'POST',
      url: '/billing-engine/test-clock/advance',
      payload: { days: 730 },
    });
    expect(byDays.statusCode).toBe(200);
    expect(new Date(byDays.json<{ now: string }>().now).getTime()).toBe(
      afterMonths.getTime() + 730 * 86_400_000,
    );
  });
});
