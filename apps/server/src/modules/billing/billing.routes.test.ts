import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOwnerOnly, createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { bearer, createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import {
  auditLog,
  invoiceLines,
  invoices,
  paymentMethods,
  sims,
  subscriptions,
} from '../../db/schema.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';

let context: TestContext;
let actors: Actors;
const billingCustomerOf: Record<number, string> = {};

async function subscriptionOf(serial: number) {
  const rows = await context.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.simIccid, demoIccid(serial)));
  return rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0]!;
}

async function invoicesOf(serial: number) {
  return context.database.db
    .select()
    .from(invoices)
    .where(eq(invoices.billingCustomerId, billingCustomerOf[serial]!));
}

const owner = () => actors.headers.owner;

async function advance(body: { days?: number; months?: number }) {
  const response = await context.app.inject({
    method: 'POST',
    url: '/billing-engine/test-clock/advance',
    payload: body,
  });
  expect(response.statusCode).toBe(200);
  return response.json<{ now: string; renewed: number; simsChanged: number }>();
}

beforeAll(async () => {
  context = await createTestContext();
  // The owner is demo@example.com, so the demo cameras are theirs.
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
  for (const row of await context.database.db.select().from(sims)) {
    const serial = Number(row.iccid.slice(12, 18));
    if (row.billingCustomerId) billingCustomerOf[serial] = row.billingCustomerId;
  }
});
afterAll(() => context.close());

describe('who may call the billing endpoints', () => {
  it('lets only the owner (and staff inside their portal) reach each endpoint', async () => {
    const id = billingCustomerOf[101]!;
    const calls = [
      { method: 'GET' as const, url: `/api/subscriptions/fetch-eligible-plans/${id}` },
      {
        method: 'GET' as const,
        url: `/api/subscriptions/preview-change/${id}?newPlanId=price_heavy_month_uk`,
      },
      { method: 'GET' as const, url: `/api/billing/all-payment-methods/${id}` },
      { method: 'GET' as const, url: `/api/billing/create-portal-session?customerId=${id}` },
      {
        method: 'POST' as const,
        url: '/api/billing/create-customer-secret',
        payload: { customerId: id },
      },
      { method: 'GET' as const, url: `/api/pause/pause-dates/${id}` },
      { method: 'GET' as const, url: `/api/pause/check-active-pause/${id}` },
      { method: 'GET' as const, url: `/api/invoices/fetch-invoices/${id}` },
      {
        method: 'GET' as const,
        url: `/api/subscriptions/renewal-plans/${billingCustomerOf[110]}/${demoIccid(110)}`,
      },
    ];
    for (const call of calls) await expectOwnerOnly(context, actors, () => call);

    // Writes: each role's attempt must not be applied for the wrong ones, so the expected owner
    // status is a rule's refusal (409) rather than a change.
    await expectOwnerOnly(
      context,
      actors,
      () => ({
        method: 'POST',
        url: '/api/pause/cancel-pause-subscription',
        payload: { customer_id: id },
      }),
      { ownerStatus: 409 },
    );
    await expectOwnerOnly(
      context,
      actors,
      () => ({
        method: 'POST',
        url: '/api/subscriptions/change-plan',
        payload: { customerId: id, newPlanId: 'price_light_month_uk' },
      }),
      { ownerStatus: 409 },
    );
    await expectOwnerOnly(
      context,
      actors,
      () => ({
        method: 'POST',
        url: '/api/pause/pause-subscription',
        payload: { customer_id: id, resume_date: '2030-01-01' },
      }),
      { ownerStatus: 400 },
    );
    await expectOwnerOnly(
      context,
      actors,
      () => ({
        method: 'POST',
        url: '/api/subscriptions/renew',
        payload: { customerId: id, iccid: demoIccid(101), priceId: 'price_light_month_uk' },
      }),
      { ownerStatus: 409 },
    );
  });

  it("answers 404 for the second demo customer's account", async () => {
    const second = bearer(
      await import('../../../test/helpers/test-app.ts').then((helpers) =>
        helpers.signInCustomer(context, 'second@example.com'),
      ),
    );
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/invoices/fetch-invoices/${billingCustomerOf[101]}`,
      headers: second,
    });
    expect(response.statusCode).toBe(404);
    const own = await context.app.inject({
      method: 'GET',
      url: `/api/invoices/fetch-invoices/${billingCustomerOf[201]}`,
      headers: second,
    });
    expect(own.statusCode).toBe(200);
  });

  it('rejects malformed ids with a 400', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/pause/pause-dates/not-an-id!',
      headers: owner(),
    });
    expect(response.statusCode).toBe(400);
  });
});

describe('GET /api/billing/account/{customerId}', () => {
  it('names the camera an account pays for, and whether Manage plan has anything for it', async () => {
    const get = (serial: number) =>
      context.app.inject({
        method: 'GET',
        url: `/api/billing/account/${billingCustomerOf[serial]}`,
        headers: owner(),
      });
    const fuelTank = await get(107);
    expect(fuelTank.statusCode).toBe(200);
    expect(fuelTank.json()).toEqual({
      customer_id: billingCustomerOf[107],
      camera: { iccid: demoIccid(107), nickname: 'Fuel tank' },
      can_manage_plan: true,
      manage_plan_refusal: null,
    });
    // A switched-off camera: nothing to change or pause, and the page says why (decision 111).
    const oldDairy = (await get(109)).json();
    expect(oldDairy).toMatchObject({
      camera: { iccid: demoIccid(109), nickname: 'Old dairy' },
      can_manage_plan: false,
      manage_plan_refusal: expect.stringMatching(
        /^This camera's SIM was switched off on 1 January 2026, .*Activate a new SIM/,
      ),
    });
    // Another customer's account and one that does not exist read the same.
    for (const url of [
      '/api/billing/account/cus_doesnotexist',
      `/api/billing/account/${billingCustomerOf[201]}`,
    ]) {
      const response = await context.app.inject({ method: 'GET', url, headers: owner() });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual({ code: 'NOT_FOUND', message: 'Billing account not found' });
    }
  });
});

describe('plans', () => {
  it('marks the current plan and what would be an upgrade', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/subscriptions/fetch-eligible-plans/${billingCustomerOf[101]}`,
      headers: owner(),
    });
    const plans = response.json().eligible_plans as {
      id: string;
      subscribed: boolean;
      upgrade_data: boolean;
      upgrade_value: boolean;
      change: string;
      data_allowance_gb: number;
      amountSaved: number;
      metadata: Record<string, string>;
    }[];
    expect(plans.map((plan) => plan.id)).toEqual([
      'price_light_month_uk',
      'price_light_year_uk',
      'price_standard_month_uk',
      'price_standard_year_uk',
      'price_heavy_month_uk',
      'price_heavy_year_uk',
    ]);
    const byId = Object.fromEntries(plans.map((plan) => [plan.id, plan]));
    expect(byId.price_light_month_uk).toMatchObject({
      subscribed: true,
      upgrade_data: false,
      upgrade_value: false,
      change: 'same',
    });
    expect(byId.price_light_year_uk).toMatchObject({
      upgrade_data: false,
      upgrade_value: true,
      change: 'same',
      amountSaved: 2400,
    });
    expect(byId.price_heavy_month_uk).toMatchObject({
      upgrade_data: true,
      change: 'upgrade',
      metadata: { Hours: '120', Provider: 'multi-network' },
    });
    expect(byId.price_heavy_month_uk!.data_allowance_gb).toBeGreaterThan(
      byId.price_light_month_uk!.data_allowance_gb,
    );
  });

  it("says whether the plan can be paused, with the pause's own refusal (decision 170)", async () => {
    const answerOf = async (serial: number) => {
      const response = await context.app.inject({
        method: 'GET',
        url: `/api/subscriptions/fetch-eligible-plans/${billingCustomerOf[serial]}`,
        headers: owner(),
      });
      expect(response.statusCode).toBe(200);
      return response.json<{ can_pause: boolean; pause_refusal: string | null }>();
    };
    const optionsOf = async (serial: number) => {
      const response = await context.app.inject({
        method: 'GET',
        url: `/api/pause/pause-dates/${billingCustomerOf[serial]}`,
        headers: owner(),
      });
      return response.json<{ pause_options: { message: string; pause_from: string | null } }>();
    };
    // Top gate (Light monthly, active) may pause; Calving pen (annual) and Bottom field (overdue)
    // may not, and Manage plan says the sentence the pause itself answers with.
    expect(await answerOf(101)).toMatchObject({ can_pause: true, pause_refusal: null });
    for (const serial of [104, 108]) {
      const answer = await answerOf(serial);
      const options = await optionsOf(serial);
      expect(answer.can_pause, `camera ${serial}`).toBe(false);
      expect(options.pause_options.pause_from).toBeNull();
      expect(answer.pause_refusal).toBe(options.pause_options.message);
    }
    expect((await answerOf(104)).pause_refusal).toMatch(/^Annual plans/);
    expect((await answerOf(108)).pause_refusal).toMatch(/overdue invoice/);
  });

  it('says a smaller plan is a downgrade, so the confirmation does not call it an upgrade', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/subscriptions/fetch-eligible-plans/${billingCustomerOf[103]}`, // Heavy monthly
      headers: owner(),
    });
    const plans = response.json().eligible_plans as { id: string; change: string }[];
    const changeOf = Object.fromEntries(plans.map((plan) => [plan.id, plan.change]));
    expect(changeOf).toMatchObject({
      price_light_month_uk: 'downgrade',
      price_standard_year_uk: 'downgrade',
      price_heavy_month_uk: 'same',
      price_heavy_year_uk: 'same',
    });
    const preview = await context.app.inject({
      method: 'GET',
      url: `/api/subscriptions/preview-change/${billingCustomerOf[103]}?newPlanId=price_light_month_uk`,
      headers: owner(),
    });
    expect(preview.json().plan).toMatchObject({ change: 'downgrade' });
  });
});

describe('switching plan', () => {
  it('shows the pro-rata charge, then charges it at once', async () => {
    const id = billingCustomerOf[101]!;
    // 10 March 12:00 in a 1 March - 1 April period: 21.5 of 31 days left.
    const preview = await context.app.inject({
      method: 'GET',
      url: `/api/subscriptions/preview-change/${id}?newPlanId=price_heavy_month_uk`,
      headers: owner(),
    });
    expect(preview.statusCode).toBe(200);
    expect(preview.json()).toMatchObject({ amount_due: 2427 - 832, credit: 0, currency: 'gbp' });

    const before = (await invoicesOf(101)).length;
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/subscriptions/change-plan',
      headers: { ...owner(), 'idempotency-key': 'switch-101-heavy-0001' },
      payload: { customerId: id, newPlanId: 'price_heavy_month_uk' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      success: true,
      subscription: { price_id: 'price_heavy_month_uk', status: 'active' },
      invoice: { amount_due: 1595, status: 'paid' },
    });
    expect((await subscriptionOf(101)).priceId).toBe('price_heavy_month_uk');
    expect(await invoicesOf(101)).toHaveLength(before + 1);

    // The same request again (a retry) is answered from the first, and charges nothing more.
    const retry = await context.app.inject({
      method: 'POST',
      url: '/api/subscriptions/change-plan',
      headers: { ...owner(), 'idempotency-key': 'switch-101-heavy-0001' },
      payload: { customerId: id, newPlanId: 'price_heavy_month_uk' },
    });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(response.json());
    expect(await invoicesOf(101)).toHaveLength(before + 1);

    const audit = await context.database.db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.action, 'billing.plan_changed'), eq(auditLog.subjectId, demoIccid(101))),
      );
    expect(audit).toHaveLength(1);
  });

  it('keeps a downgrade as credit for the next invoice', async () => {
    const id = billingCustomerOf[103]!; // Heavy monthly
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/subscriptions/change-plan',
      headers: owner(),
      payload: { customerId: id, newPlanId: 'price_light_month_uk' },
    });
    expect(response.statusCode).toBe(200);
    // Nothing is invoiced now: the unused time waits for the renewal (docs/decisions/026).
    expect(response.json().invoice).toBeNull();
    const listed = await context.app.inject({
      method: 'GET',
      url: `/api/invoices/fetch-invoices/${id}`,
      headers: owner(),
    });
    expect(listed.json().credit_balance).toBeGreaterThan(0);
  });

  it('changes nothing when the card is declined', async () => {
    const id = billingCustomerOf[102]!; // Standard annual
    await context.database.db
      .update(paymentMethods)
      .set({ last4: '0341' })
      .where(eq(paymentMethods.billingCustomerId, id));
    const before = await subscriptionOf(102);
    const invoiceCount = (await invoicesOf(102)).length;
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/subscriptions/change-plan',
      headers: owner(),
      payload: { customerId: id, newPlanId: 'price_heavy_year_uk' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().message).toMatch(/declined/);
    expect(await subscriptionOf(102)).toEqual(before);
    expect(await invoicesOf(102)).toHaveLength(invoiceCount);
    await context.database.db
      .update(paymentMethods)
      .set({ last4: '4444' })
      .where(eq(paymentMethods.billingCustomerId, id));
  });

  it('applies 20 concurrent identical switches once', async () => {
    const id = billingCustomerOf[104]!; // Heavy annual → Standard annual
    const invoiceCount = (await invoicesOf(104)).length;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        context.app.inject({
          method: 'POST',
          url: '/api/subscriptions/change-plan',
          headers: { ...owner(), 'idempotency-key': `concurrent-switch-${index}` },
          payload: { customerId: id, newPlanId: 'price_standard_year_uk' },
        }),
      ),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 409)).toBe(
      true,
    );
    // A downgrade: its two lines wait for the next invoice, once.
    expect(await invoicesOf(104)).toHaveLength(invoiceCount);
    const waiting = await context.database.db
      .select()
      .from(invoiceLines)
      .where(and(eq(invoiceLines.billingCustomerId, id), isNull(invoiceLines.invoiceId)));
    expect(waiting.map((line) => line.description)).toEqual([
      expect.stringMatching(/^Unused time on Heavy Streaming from /),
      expect.stringMatching(/^Remaining time on Standard Streaming from /),
    ]);
    expect((await subscriptionOf(104)).priceId).toBe('price_standard_year_uk');
  });

  it('refuses a switch while overdue, paused or with a pause scheduled', async () => {
    for (const serial of [107, 105, 106]) {
      const response = await context.app.inject({
        method: 'POST',
        url: '/api/subscriptions/change-plan',
        headers: owner(),
        payload: { customerId: billingCustomerOf[serial], newPlanId: 'price_heavy_month_uk' },
      });
      expect(response.statusCode).toBe(409);
    }
  });
});

describe('payment methods, portal and invoices', () => {
  it('lists cards with expiry', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/billing/all-payment-methods/${billingCustomerOf[107]}`,
      headers: owner(),
    });
    expect(response.json().payment_methods).toEqual([
      expect.objectContaining({
        card_brand: 'visa',
        last4: '4242',
        exp_month: 3,
        exp_year: 2025,
        is_expired: true,
      }),
    ]);
  });

  it('gives a portal URL and a customer secret', async () => {
    const portal = await context.app.inject({
      method: 'GET',
      url: `/api/billing/create-portal-session?customerId=${billingCustomerOf[108]}`,
      headers: owner(),
    });
    expect(portal.json().url).toMatch(/^http:\/\/portal\.test\/billing-engine\/portal\/bps_/);
    const page = await context.app.inject({
      method: 'GET',
      url: new URL(portal.json().url).pathname,
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Unpaid invoices');
    const secret = await context.app.inject({
      method: 'POST',
      url: '/api/billing/create-customer-secret',
      headers: owner(),
      payload: { customerId: billingCustomerOf[108] },
    });
    expect(secret.json().secret).toMatch(/^cuss_secret_/);
  });

  it('pays an overdue invoice in the portal with a new card and makes the subscription active', async () => {
    expect((await subscriptionOf(108)).status).toBe('overdue');
    const portal = await context.app.inject({
      method: 'GET',
      url: `/api/billing/create-portal-session?customerId=${billingCustomerOf[108]}`,
      headers: owner(),
    });
    const path = new URL(portal.json().url).pathname;
    const [open] = (await invoicesOf(108)).filter((invoice) => invoice.status === 'open');
    // The card on file declines every charge (4000 0000 0000 0341), as the retries found.
    const pay = await context.app.inject({
      method: 'POST',
      url: `${path}/invoices/${open!.id}/pay`,
    });
    expect(pay.statusCode).toBe(303);
    // The address names our sentence by its code (docs/decisions/027).
    expect(pay.headers.location).toMatch(/\?error=declined$/);
    expect((await subscriptionOf(108)).status).toBe('overdue');
    const newCard = await context.app.inject({
      method: 'POST',
      url: `${path}/cards`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `number=4242+4242+4242+4242&expiry=12+%2F+30&cvc=123&makeDefault=yes&payNow=yes&payAmountDue=${open!.amountDue}`,
    });
    expect(newCard.headers.location).toMatch(/\?notice=card_added_paid$/);
    expect((await subscriptionOf(108)).status).toBe('active');
  });

  it('lists invoices with hosted page and PDF links that work only with their token', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/invoices/fetch-invoices/${billingCustomerOf[107]}`,
      headers: owner(),
    });
    const [latest, paid] = response.json().invoices;
    expect(latest).toMatchObject({ status: 'open', amount_due: 2000, currency: 'gbp' });
    // One word, its cause and its date (decision 113).
    expect(latest).toMatchObject({
      status_label: 'Unpaid',
      due_date: latest.created_date.slice(0, 10),
      status_detail: expect.stringMatching(
        /^Your card ending 4242 expired in March \d{4}: update it to pay £20\.00\.$/,
      ),
    });
    expect(paid).toMatchObject({
      status: 'paid',
      status_label: 'Paid',
      status_detail: expect.stringMatching(/^Paid on \d{1,2} \w+ \d{4}\.$/),
    });
    expect(latest.lines).toEqual([
      { description: '1 × Standard Streaming (at £20.00 / month)', amount: 2000 },
    ]);
    const pdf = await context.app.inject({
      method: 'GET',
      url: new URL(latest.invoice_pdf).pathname,
    });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.rawPayload.toString('latin1')).toContain('%%EOF');
    const hosted = await context.app.inject({
      method: 'GET',
      url: new URL(latest.hosted_invoice_url).pathname,
    });
    expect(hosted.body).toContain('Pay this invoice');
    const forged = await context.app.inject({
      method: 'GET',
      url: `/billing-engine/invoices/${latest.id}/${'x'.repeat(32)}/pdf`,
    });
    expect(forged.statusCode).toBe(404);
  });

  it('pays an invoice on the hosted page with a new card after the saved one fails', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/invoices/fetch-invoices/${billingCustomerOf[107]}`,
      headers: owner(),
    });
    const path = new URL(response.json().invoices[0].hosted_invoice_url).pathname;
    const expired = await context.app.inject({ method: 'POST', url: `${path}/pay` });
    expect(decodeURIComponent(expired.headers.location as string)).toContain('expired');
    const declined = await context.app.inject({
      method: 'POST',
      url: `${path}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=4000000000000002&expiry=12%2F30&cvc=123',
    });
    // A refused new card shows the page again with what was typed (decision 114).
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain('declined');
    expect(declined.body).toContain('value="4000000000000002"');
    expect((await subscriptionOf(107)).status).toBe('past_due');
    const paid = await context.app.inject({
      method: 'POST',
      url: `${path}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=4242+4242+4242+4242&expiry=12+%2F+30&cvc=123',
    });
    expect(paid.headers.location).toMatch(/\?notice=payment_received$/);
    expect((await subscriptionOf(107)).status).toBe('active');
  });
});

describe('pausing', () => {
  it('offers a pause from next month with restart dates', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/pause/pause-dates/${billingCustomerOf[101]}`,
      headers: owner(),
    });
    expect(response.json().pause_options).toMatchObject({
      pause_from: '2026-04-01',
      resume_dates: [
        '2026-05-01',
        '2026-06-01',
        '2026-07-01',
        '2026-08-01',
        '2026-09-01',
        '2026-10-01',
      ],
      customer_id: billingCustomerOf[101],
    });
  });

  it('refuses annual plans and dates not offered', async () => {
    const annual = await context.app.inject({
      method: 'GET',
      url: `/api/pause/pause-dates/${billingCustomerOf[102]}`,
      headers: owner(),
    });
    expect(annual.json().pause_options).toMatchObject({ pause_from: null, resume_dates: [] });
    const wrongDate = await context.app.inject({
      method: 'POST',
      url: '/api/pause/pause-subscription',
      headers: owner(),
      payload: { customer_id: billingCustomerOf[101], resume_date: '2026-04-15' },
    });
    expect(wrongDate.statusCode).toBe(400);
  });

  it('schedules, moves and cancels a pause', async () => {
    const id = billingCustomerOf[101]!;
    const pause = (resume: string) =>
      context.app.inject({
        method: 'POST',
        url: '/api/pause/pause-subscription',
        headers: owner(),
        payload: { customer_id: id, resume_date: resume },
      });
    expect((await pause('2026-06-01')).json()).toMatchObject({
      success: true,
      pause: { start_date: '2026-04-01', end_date: '2026-06-01' },
    });
    const active = await context.app.inject({
      method: 'GET',
      url: `/api/pause/check-active-pause/${id}`,
      headers: owner(),
    });
    expect(active.json()).toEqual({
      has_active_pause: true,
      state: 'scheduled',
      pause: { start_date: '2026-04-01', end_date: '2026-06-01' },
    });
    expect((await pause('2026-07-01')).json().pause.end_date).toBe('2026-07-01');
    const cancel = await context.app.inject({
      method: 'POST',
      url: '/api/pause/cancel-pause-subscription',
      headers: owner(),
      payload: { customer_id: id },
    });
    expect(cancel.json()).toMatchObject({ success: true, pause: null });
    expect((await subscriptionOf(101)).pauseStartsOn).toBeNull();
  });
});

describe('renewing a camera with no active subscription', () => {
  it('checks out a new subscription on the hosted page', async () => {
    const id = billingCustomerOf[110]!;
    const plans = await context.app.inject({
      method: 'GET',
      url: `/api/subscriptions/renewal-plans/${id}/${demoIccid(110)}?location=ie`,
      headers: owner(),
    });
    expect(plans.json()).toMatchObject({ can_renew: true, reason: null });
    expect(plans.json().plans[0]).toMatchObject({ id: 'price_light_month_ie', currency: 'eur' });
    const terminated = await context.app.inject({
      method: 'GET',
      url: `/api/subscriptions/renewal-plans/${billingCustomerOf[109]}/${demoIccid(109)}`,
      headers: owner(),
    });
    expect(terminated.json()).toMatchObject({ can_renew: false });

    const renew = await context.app.inject({
      method: 'POST',
      url: '/api/subscriptions/renew',
      headers: owner(),
      payload: { customerId: id, iccid: demoIccid(110), priceId: 'price_standard_month_uk' },
    });
    expect(renew.statusCode).toBe(200);
    const checkout = new URL(renew.json().url).pathname;
    expect((await context.app.inject({ method: 'GET', url: checkout })).body).toContain(
      'Subscribe to Standard Streaming',
    );
    const declined = await context.app.inject({
      method: 'POST',
      url: `${checkout}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=4000000000000002&expiry=12%2F30&cvc=123',
    });
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain('declined');
    expect((await subscriptionOf(110)).status).toBe('canceled');
    const paid = await context.app.inject({
      method: 'POST',
      url: `${checkout}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'number=4242424242424242&expiry=12%2F30&cvc=123',
    });
    expect(paid.headers.location).toMatch(
      /^http:\/\/portal\.test\/dashboard\?refresh=true&session_id=cs_/,
    );
    expect(await subscriptionOf(110)).toMatchObject({
      status: 'active',
      priceId: 'price_standard_month_uk',
    });
    const again = await context.app.inject({ method: 'GET', url: checkout });
    expect(again.statusCode).toBe(404);
  });
});

describe('the billing cycle on the test clock', () => {
  it('pauses the SIM at the pause start, skips its invoices and resumes with billing', async () => {
    const id = billingCustomerOf[101]!;
    await context.app.inject({
      method: 'POST',
      url: '/api/pause/pause-subscription',
      headers: owner(),
      payload: { customer_id: id, resume_date: '2026-06-01' },
    });
    const invoiceCount = (await invoicesOf(101)).length;

    await advance({ days: 23 }); // 2 April
    const paused = await subscriptionOf(101);
    expect(paused.status).toBe('paused');
    const [sim] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.iccid, demoIccid(101)));
    expect(sim!.state).toBe('paused');
    expect(await invoicesOf(101)).toHaveLength(invoiceCount);

    await advance({ months: 2 }); // 2 June
    const resumed = await subscriptionOf(101);
    expect(resumed).toMatchObject({ status: 'active', pauseStartsOn: null });
    const [simAfter] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.iccid, demoIccid(101)));
    expect(simAfter!.state).toBe('active');
    const june = (await invoicesOf(101)).filter((invoice) =>
      invoice.periodStart?.toISOString().startsWith('2026-06'),
    );
    expect(june).toHaveLength(1);
    expect(
      (await invoicesOf(101)).filter((invoice) =>
        /2026-0[45]/.test(invoice.periodStart?.toISOString() ?? ''),
      ),
    ).toHaveLength(0);
  });

  it('takes an unpaid renewal through past due and overdue to canceled, then terminates the SIM', async () => {
    // Camera 201's card will be declined from now on.
    await context.database.db
      .update(paymentMethods)
      .set({ last4: '0341' })
      .where(eq(paymentMethods.billingCustomerId, billingCustomerOf[201]!));
    await advance({ months: 1 }); // 2 July: renewal fails
    expect((await subscriptionOf(201)).status).toBe('past_due');
    await advance({ days: 7 });
    expect((await subscriptionOf(201)).status).toBe('overdue');
    await advance({ days: 24 });
    const canceled = await subscriptionOf(201);
    expect(canceled.status).toBe('canceled');
    let [sim] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.iccid, demoIccid(201)));
    expect(sim!.state).toBe('active'); // still renewable for a while
    await advance({ days: 14 });
    [sim] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.iccid, demoIccid(201)));
    expect(sim!.state).toBe('terminated');
  });
});
