/**
 * What the billing provider records on the account's activity log (docs/decisions/092): cards
 * added, removed and made the default, and payments made and failed. These happen inside the
 * provider (its hosted pages, its billing cycle, Stripe's webhooks), so they are written here, in
 * the transaction that made them, as the system acting on the account that owns the billing
 * customer. The sentences for these codes live in modules/activity/activity-summaries.ts.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '@farmcam/db';

export const billingActivityActions = {
  cardAdded: 'billing.card_added',
  cardRemoved: 'billing.card_removed',
  cardDefault: 'billing.card_default',
  paymentSucceeded: 'billing.payment_succeeded',
  paymentFailed: 'billing.payment_failed',
} as const;

type CardAction = 'cardAdded' | 'cardRemoved' | 'cardDefault';

/** A card change, on the account of the card's billing customer (its camera's SIM as subject). */
export async function recordCardChange(
  executor: Executor,
  action: CardAction,
  card: { billingCustomerId: string; brand: string; last4: string; id: string },
): Promise<void> {
  const details = { brand: card.brand, last4: card.last4, paymentMethodId: card.id };
  await executor.execute(sql`
    insert into audit_log (actor_type, account_id, action, subject_type, subject_id, details)
    select 'system', bc.customer_id, ${billingActivityActions[action]},
           case when camera.iccid is null then 'billing_customer' else 'sim' end,
           coalesce(camera.iccid, bc.id),
           ${JSON.stringify({ ...details, billingCustomerId: card.billingCustomerId })}::jsonb
      from billing_customers bc
      left join lateral (select s.iccid from sims s where s.billing_customer_id = bc.id
                          order by s.iccid limit 1) camera on true
     where bc.id = ${card.billingCustomerId}`);
}

/**
 * Payments (local engine), one entry each: succeeded or failed with the amount, the invoice
 * number, why it failed and when it was taken in billing time (`paidAt`; the entry itself is
 * timed when it is written, like every other). One statement however many.
 */
export async function recordPayments(executor: Executor, paymentIds: string[]): Promise<void> {
  if (paymentIds.length === 0) return;
  await executor.execute(sql`
    insert into audit_log (actor_type, account_id, action, subject_type, subject_id, details)
    select 'system', bc.customer_id,
           case when p.status = 'failed' then ${billingActivityActions.paymentFailed}
                else ${billingActivityActions.paymentSucceeded} end,
           'sim', s.sim_iccid,
           jsonb_build_object('amount', p.amount, 'currency', p.currency,
                              'invoiceId', i.id, 'invoiceNumber', i.number,
                              'reason', p.failure_reason, 'billingCustomerId', bc.id,
                              'paidAt', p.created_at)
      from payments p
      join invoices i on i.id = p.invoice_id
      join billing_customers bc on bc.id = i.billing_customer_id
      left join subscriptions s on s.id = i.subscription_id
     where p.id = any(${sql.param(paymentIds)}::text[])`);
}

/**
 * A payment attempt known only from its invoice (no card to charge, or Stripe's webhook): the
 * entry for the invoice's account and camera.
 */
export async function recordInvoicePayment(
  executor: Executor,
  input: {
    invoiceId: string;
    isPaid: boolean;
    amount: number;
    currency: string;
    reason: string | null;
    at: Date;
  },
): Promise<void> {
  const action = input.isPaid
    ? billingActivityActions.paymentSucceeded
    : billingActivityActions.paymentFailed;
  await executor.execute(sql`
    insert into audit_log (actor_type, account_id, action, subject_type, subject_id, details)
    select 'system', bc.customer_id, ${action}, 'sim', s.sim_iccid,
           jsonb_build_object('amount', ${input.amount}::int, 'currency', ${input.currency}::text,
                              'invoiceId', i.id, 'invoiceNumber', i.number,
                              'reason', ${input.reason}::text, 'billingCustomerId', bc.id,
                              'paidAt', ${input.at.toISOString()}::timestamptz)
      from invoices i
      join billing_customers bc on bc.id = i.billing_customer_id
      left join subscriptions s on s.id = i.subscription_id
     where i.id = ${input.invoiceId}`);
}

interface CardRow {
  id: string;
  billingCustomerId: string;
  brand: string;
  last4: string;
  isDefault: boolean;
}

/**
 * The card changes between two readings of a customer's saved cards (Stripe's webhooks mirror
 * the whole list): cards added, removed, and a saved card made the default. A new card that is
 * the default is recorded once, as added.
 */
export async function recordCardDifferences(
  executor: Executor,
  before: CardRow[],
  after: CardRow[],
): Promise<void> {
  const beforeIds = new Set(before.map((card) => card.id));
  const afterIds = new Set(after.map((card) => card.id));
  for (const card of after) {
    if (!beforeIds.has(card.id)) await recordCardChange(executor, 'cardAdded', card);
  }
  for (const card of before) {
    if (!afterIds.has(card.id)) await recordCardChange(executor, 'cardRemoved', card);
  }
  const previousDefault = before.find((card) => card.isDefault)?.id ?? null;
  const newDefault = after.find((card) => card.isDefault);
  if (newDefault && newDefault.id !== previousDefault && beforeIds.has(newDefault.id)) {
    await recordCardChange(executor, 'cardDefault', newDefault);
  }
}
