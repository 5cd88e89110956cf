import type { SpendAlertResponse } from '@farmcam/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingCustomers, invoices, sims, spendAlerts, subscriptions } from '../../db/schema.ts';
import { seedCatalogue } from '../../seed/demo.ts';
import {
  bearer,
  createTestContext,
  insertCustomer,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';
import { ukMonthOf } from './spend-alerts.service.ts';

let context: TestContext;
const email = 'spend@example.com';

beforeAll(async () => {
  context = await createTestContext();
  context.clock.set('2026-03-10T12:00:00Z');
  const { db } = context.database;
  await seedCatalogue(db);
  const customerId = await insertCustomer(context, email);
  await db.insert(billingCustomers).values([
    { id: 'cus_spend_1', customerId, provider: 'local', email },
    { id: 'cus_spend_2', customerId, provider: 'local', email },
  ]);
  // Raised this month: £12.00 on the 1st; a void one does not count; last month's neither.
  await db.insert(invoices).values([
    {
      id: 'in_spend_1',
      billingCustomerId: 'cus_spend_1',
      number: 'SPEND-1',
      status: 'paid',
      amountDue: 1200,
      currency: 'gbp',
      description: 'Light',
      createdAt: new Date('2026-03-01T00:00:00Z'),
    },
    {
      id: 'in_spend_2',
      billingCustomerId: 'cus_spend_1',
      number: 'SPEND-2',
      status: 'void',
      amountDue: 5000,
      currency: 'gbp',
      description: 'Voided',
      createdAt: new Date('2026-03-02T00:00:00Z'),
    },
    {
      id: 'in_spend_3',
      billingCustomerId: 'cus_spend_1',
      number: 'SPEND-3',
      status: 'paid',
      amountDue: 1200,
      currency: 'gbp',
      description: 'Light, February',
      createdAt: new Date('2026-02-01T00:00:00Z'),
    },
  ]);
  // Renews on the 20th (activated mid-month): Heavy, £35.00, previewed by the billing engine.
  await db.insert(sims).values({
    iccid: '8944660000000000216',
    state: 'active',
    customerId,
    billingCustomerId: 'cus_spend_2',
    nickname: 'Yard',
  });
  await db.insert(subscriptions).values({
    id: 'sub_spend_2',
    simIccid: '8944660000000000216',
    billingCustomerId: 'cus_spend_2',
    priceId: 'price_heavy_month_uk',
    status: 'active',
    currentPeriodStart: new Date('2026-02-20T00:00:00Z'),
    billingCycleAnchor: new Date('2026-02-20T00:00:00Z'),
    currentPeriodEnd: new Date('2026-03-20T00:00:00Z'),
  });
});
afterAll(() => context.close());

const call = async (method: 'GET' | 'PUT', payload?: Record<string, unknown>) =>
  context.app.inject({
    method,
    url: '/api/account/spend-alert',
    headers: bearer(await signInCustomer(context, email)),
    ...(payload !== undefined && { payload }),
  });
const send = () => context.services.spendAlerts.sendSpendAlerts();
const alertMails = async () =>
  (await context.mailer.list({ to: email })).filter((mail) =>
    mail.subject.startsWith('Your bill this month has reached'),
  );

describe('the monthly spend alert (decision 095)', () => {
  it('knows the UK month, which begins at UK midnight', () => {
    expect(ukMonthOf(new Date('2026-03-31T23:30:00Z'))).toEqual({
      month: '2026-04',
      start: new Date('2026-03-31T23:00:00Z'),
      end: new Date('2026-04-30T23:00:00Z'),
    });
  });

  it("answers this month's invoices and the renewals still to come, with no alert set", async () => {
    const response = await call('GET');
    expect(response.statusCode).toBe(200);
    expect(response.json<SpendAlertResponse>()).toEqual({
      amountMinor: null,
      currency: 'GBP',
      month: '2026-03',
      raisedMinor: 1200,
      upcomingMinor: 3500,
      expectedMinor: 4700,
      alertSentAt: null,
    });
    expect(await send()).toEqual({ sent: 0 });
  });

  it('refuses an amount that makes no sense with a sentence', async () => {
    const response = await call('PUT', { amountMinor: -5 });
    expect(response.statusCode).toBe(400);
  });

  it('stays quiet below the amount, and e-mails once when the month reaches it', async () => {
    expect((await call('PUT', { amountMinor: 5000 })).json()).toMatchObject({
      amountMinor: 5000,
      expectedMinor: 4700,
    });
    expect(await send()).toEqual({ sent: 0 });

    expect((await call('PUT', { amountMinor: 4500 })).statusCode).toBe(200);
    expect(await send()).toEqual({ sent: 1 });
    expect(await send()).toEqual({ sent: 0 });
    const [mail] = await alertMails();
    expect(mail!.subject).toBe('Your bill this month has reached £45.00');
    expect(mail!.text).toContain(
      "This month your cameras' invoices come to £47.00: £12.00 already invoiced and £35.00 in renewals due before the month ends.",
    );
    expect((await call('GET')).json<SpendAlertResponse>().alertSentAt).toBe(
      '2026-03-10T12:00:00.000Z',
    );
  });

  it('starts afresh the next month', async () => {
    context.clock.set('2026-04-02T09:00:00Z');
    try {
      // Nothing raised yet in April here: below the amount, no e-mail.
      expect(await send()).toEqual({ sent: 0 });
      await context.database.db.insert(invoices).values({
        id: 'in_spend_4',
        billingCustomerId: 'cus_spend_1',
        number: 'SPEND-4',
        status: 'open',
        amountDue: 4600,
        currency: 'gbp',
        description: 'Light and more',
        createdAt: new Date('2026-04-01T06:00:00Z'),
      });
      expect(await send()).toEqual({ sent: 1 });
      expect(await alertMails()).toHaveLength(2);
      const rows = await context.database.db.select().from(spendAlerts);
      expect(rows.map((row) => row.month).sort()).toEqual(['2026-03', '2026-04']);
    } finally {
      context.clock.set('2026-03-10T12:00:00Z');
    }
  });
});
