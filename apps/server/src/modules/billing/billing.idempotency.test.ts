/**
 * Every billing write the web app makes carries an `Idempotency-Key` (docs/decisions/027): the
 * same key again is applied once and answered as the first time; the same key for another
 * request is refused.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { auditLog, billingSessions, sims, subscriptions } from '../../db/schema.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';

let context: TestContext;
let actors: Actors;
const billingCustomerOf: Record<number, string> = {};

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
  for (const row of await context.database.db.select().from(sims)) {
    const serial = Number(row.iccid.slice(12, 18));
    if (row.billingCustomerId) billingCustomerOf[serial] = row.billingCustomerId;
  }
});
afterAll(() => context.close());

const send = (
  method: 'GET' | 'POST',
  url: string,
  key: string,
  payload?: Record<string, unknown>,
) =>
  context.app.inject({
    method,
    url,
    headers: { ...actors.headers.owner, 'idempotency-key': key },
    ...(payload && { payload }),
  });

describe('a billing write repeated with the same Idempotency-Key', () => {
  it('pauses once and answers the retry as the first time', async () => {
    const customerId = billingCustomerOf[103]!;
    const options = await context.app.inject({
      method: 'GET',
      url: `/api/pause/pause-dates/${customerId}`,
      headers: actors.headers.owner,
    });
    const resumeDate = options.json().pause_options.resume_dates[0] as string;
    const body = { customer_id: customerId, resume_date: resumeDate };
    const first = await send('POST', '/api/pause/pause-subscription', 'web-pause-0001', body);
    expect(first.statusCode).toBe(200);
    const retry = await send('POST', '/api/pause/pause-subscription', 'web-pause-0001', body);
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    const audits = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.subjectId, demoIccid(103)));
    expect(audits.filter((entry) => entry.action.includes('pause'))).toHaveLength(1);

    // The same key for something else is refused rather than answered with the pause.
    const other = await send('POST', '/api/pause/cancel-pause-subscription', 'web-pause-0001', {
      customer_id: customerId,
    });
    expect(other.statusCode).toBe(200);
    const misuse = await send('POST', '/api/pause/pause-subscription', 'web-pause-0001', {
      ...body,
      resume_date: '2099-01-01',
    });
    expect(misuse.statusCode).toBe(422);
    const [subscription] = await context.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.simIccid, demoIccid(103)));
    expect(subscription!.pauseStartsOn).toBeNull();
  });

  it('opens one portal session and one customer secret per key', async () => {
    const customerId = billingCustomerOf[101]!;
    const sessionsBefore = (await context.database.db.select().from(billingSessions)).length;
    const portalUrl = `/api/billing/create-portal-session?customerId=${customerId}`;
    const portal = await send('GET', portalUrl, 'web-portal-0001');
    const portalAgain = await send('GET', portalUrl, 'web-portal-0001');
    expect(portal.statusCode).toBe(200);
    expect(portalAgain.json()).toEqual(portal.json());
    const secret = await send('POST', '/api/billing/create-customer-secret', 'web-secret-0001', {
      customerId,
    });
    const secretAgain = await send(
      'POST',
      '/api/billing/create-customer-secret',
      'web-secret-0001',
      { customerId },
    );
    expect(secret.statusCode).toBe(200);
    expect(secretAgain.json()).toEqual(secret.json());
    expect((await context.database.db.select().from(billingSessions)).length).toBe(
      sessionsBefore + 2,
    );
    // A new click is a new key and a new session.
    const next = await send('GET', portalUrl, 'web-portal-0002');
    expect(next.json().url).not.toBe(portal.json().url);
  });

  it('refuses a malformed key with 400', async () => {
    const response = await send(
      'GET',
      `/api/billing/create-portal-session?customerId=${billingCustomerOf[101]}`,
      'bad key!',
    );
    expect(response.statusCode).toBe(400);
  });
});
