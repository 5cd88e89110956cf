/**
 * The hosted pages read forms without a schema: values of the wrong shape (JSON numbers, repeated
 * query keys) are treated as missing, never passed on (fuzz finds, docs/decisions/064).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingCustomers, customers, invoices } from '@farmcam/db/schema';
import { seedDemoData } from '../../../apps/server/src/seed/demo.ts';
import {
  bearer,
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../apps/server/test/helpers/test-app.ts';

let context: TestContext;
let portalPath: string;
beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
  const token = await signInCustomer(context, 'demo@example.com');
  const [customer] = await context.database.db
    .select()
    .from(customers)
    .where(eq(customers.email, 'demo@example.com'));
  const [billingCustomer] = await context.database.db
    .select()
    .from(billingCustomers)
    .where(eq(billingCustomers.customerId, customer!.id));
  const portal = await context.app.inject({
    method: 'GET',
    url: `/api/billing/create-portal-session?customerId=${billingCustomer!.id}`,
    headers: bearer(token),
  });
  if (portal.statusCode !== 200) throw new Error(portal.body);
  portalPath = new URL(portal.json<{ url: string }>().url).pathname;
});
afterAll(() => context.close());

describe('hosted pages: input of the wrong shape', () => {
  it('a card posted as JSON numbers is refused, not a 500', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: `${portalPath}/cards`,
      payload: { number: 4242424242424242, expiry: 1230, cvc: 123 },
    });
    // Refused as a bad request, or shown back on the page like a mistyped card.
    if (response.statusCode === 303) expect(response.headers.location).toContain('error=');
    else expect(response.statusCode).toBe(400);
  });

  it('a repeated notice in the address shows nothing rather than failing', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `${portalPath}?error=a&error=b&notice=c&notice=d`,
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain('class="notice');
  });
});

describe('the hosted invoice page on a phone (docs/decisions/027)', () => {
  it('puts the amount and the pay button before the invoice lines', async () => {
    const [open] = await context.database.db
      .select()
      .from(invoices)
      .where(eq(invoices.status, 'open'))
      .limit(1);
    const response = await context.app.inject({ method: 'GET', url: open!.hostedInvoiceUrl! });
    expect(response.statusCode).toBe(200);
    const body = response.body;
    const payButton = body.search(/<button type="submit">Pay /);
    expect(payButton).toBeGreaterThan(body.indexOf('class="total"'));
    expect(payButton).toBeLessThan(body.indexOf('Invoice details'));
    expect(body.indexOf('Invoice details')).toBeLessThan(body.indexOf('<th>Description</th>'));
  });
});
