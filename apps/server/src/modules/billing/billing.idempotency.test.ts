/**
 * Every billing write the web app makes carries an `Idempotency-Key` (docs/decisions/027), and
 * the server holds it to Stripe's rules (lib/idempotency.ts, docs/decisions/108): the same key
 * again is applied once and answered as the first time (`Idempotent-Replayed: true`); while the
 * first is still running the others answer 409; the same key on another endpoint or with other
 * details is refused with 422 and a sentence. The concurrent cases hold the first request inside
 * its database work with a lock taken from another connection (PostgreSQL, TEST_DATABASE_URL),
 * so the others really arrive while it runs.
 */
import { and, eq, like } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { auditLog, billingSessions, invoices, sims, subscriptions } from '../../db/schema.ts';
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
}, 60_000);
afterAll(() => context.close());

const send = (
  method: 'GET' | 'POST',
  url: string,
  key: string,
  payload?: Record<string, unknown>,
  headers: Record<string, string> = actors.headers.owner,
) =>
  context.app.inject({
    method,
    url,
    headers: { ...headers, 'idempotency-key': key },
    ...(payload && { payload }),
  });

async function auditsOf(serial: number, action: string) {
  return context.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.subjectId, demoIccid(serial)), like(auditLog.action, action)));
}

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
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await send('POST', '/api/pause/pause-subscription', 'web-pause-0001', body);
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await auditsOf(103, '%pause%')).toHaveLength(1);
  });

  it('refuses the key on another endpoint, or with other details, and does neither', async () => {
    const customerId = billingCustomerOf[103]!;
    const other = await send('POST', '/api/pause/cancel-pause-subscription', 'web-pause-0001', {
      customer_id: customerId,
    });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({
      code: 'UNPROCESSABLE',
      message:
        'This Idempotency-Key was already used for another request (POST /api/pause/pause-subscription). Use a new key for each new request.',
    });
    const misuse = await send('POST', '/api/pause/pause-subscription', 'web-pause-0001', {
      customer_id: customerId,
      resume_date: '2099-01-01',
    });
    expect(misuse.statusCode).toBe(422);
    expect(misuse.json().message).toBe(
      'This Idempotency-Key was already used for the same request with other details. Use a new key for each new request.',
    );
    // The pause of the first request stands; nothing else was done.
    const [subscription] = await context.database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.simIccid, demoIccid(103)));
    expect(subscription!.pauseStartsOn).not.toBeNull();
    expect(await auditsOf(103, '%pause%')).toHaveLength(1);
  });

  it('keeps one person’s keys apart from another’s', async () => {
    // Staff in the owner's portal sending the owner's key make their own request, not a replay.
    const response = await send(
      'GET',
      `/api/billing/create-portal-session?customerId=${billingCustomerOf[101]}`,
      'web-pause-0001',
      undefined,
      actors.headers.team,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['idempotent-replayed']).toBeUndefined();
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

  it('forgets a key whose request failed, so it can be tried again', async () => {
    const customerId = billingCustomerOf[102]!;
    const refused = await send('POST', '/api/subscriptions/change-plan', 'web-change-0009', {
      customerId,
      newPlanId: 'price_standard_year_uk',
    });
    // Refused by the service once the key was claimed: Lambing shed is already on that plan.
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.json().message).toMatch(/already on/);
    const retried = await send('POST', '/api/subscriptions/change-plan', 'web-change-0009', {
      customerId,
      newPlanId: 'price_standard_year_uk',
    });
    expect(retried.statusCode).toBe(refused.statusCode);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });
});

/**
 * Runs `requests` at once while `hold` (SQL on its own connection, in an open transaction) keeps
 * the first of them inside its database work, then lets it finish.
 */
async function whileHeld<T>(hold: string, requests: () => Promise<T>[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: context.database.connectionString });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(hold);
    const answers = Promise.all(requests());
    // Let every request reach the database while the first waits on the lock.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await client.query('commit');
    return await answers;
  } finally {
    await client.end();
  }
}

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'concurrent requests with one Idempotency-Key on PostgreSQL',
  () => {
    it('switches the plan once: one 200, the others 409, then the answer replayed', async () => {
      const customerId = billingCustomerOf[101]!;
      const [subscription] = await context.database.db
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.simIccid, demoIccid(101)));
      const invoicesBefore = await context.database.db
        .select()
        .from(invoices)
        .where(eq(invoices.subscriptionId, subscription!.id));
      const body = { customerId, newPlanId: 'price_heavy_month_uk' };
      const answers = await whileHeld(
        `select 1 from subscriptions where id = '${subscription!.id}' for update`,
        () =>
          Array.from({ length: 6 }, () =>
            send('POST', '/api/subscriptions/change-plan', 'web-concurrent-change-1', body),
          ),
      );
      const statuses = answers.map((answer) => answer.statusCode).sort();
      expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
      for (const answer of answers.filter((candidate) => candidate.statusCode === 409)) {
        expect(answer.json()).toEqual({
          code: 'CONFLICT',
          message: 'This request is already being processed. Try again shortly.',
        });
      }
      const invoicesAfter = await context.database.db
        .select()
        .from(invoices)
        .where(eq(invoices.subscriptionId, subscription!.id));
      expect(invoicesAfter).toHaveLength(invoicesBefore.length + 1);
      expect(await auditsOf(101, 'billing.plan_changed')).toHaveLength(1);
      const retry = await send(
        'POST',
        '/api/subscriptions/change-plan',
        'web-concurrent-change-1',
        body,
      );
      expect(retry.statusCode).toBe(200);
      expect(retry.json()).toEqual(answers.find((answer) => answer.statusCode === 200)!.json());
    });

    it('starts one renewal checkout (all six used to answer 200 and audit six)', async () => {
      const customerId = billingCustomerOf[110]!;
      const sessionsBefore = (await context.database.db.select().from(billingSessions)).length;
      const answers = await whileHeld('lock table billing_sessions in share mode', () =>
        Array.from({ length: 6 }, () =>
          send('POST', '/api/subscriptions/renew', 'web-concurrent-renew-1', {
            customerId,
            iccid: demoIccid(110),
            priceId: 'price_light_month_uk',
          }),
        ),
      );
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([
        200, 409, 409, 409, 409, 409,
      ]);
      expect((await context.database.db.select().from(billingSessions)).length).toBe(
        sessionsBefore + 1,
      );
      expect(await auditsOf(110, 'billing.renewal_started')).toHaveLength(1);
    });
  },
);
