/** The spend alert's statements (decision 095): settings, the month's invoices, the claims. */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';

export interface SpendAlertAccount {
  customer_id: string;
  email: string;
  amount_minor: number;
  currency: string;
}

export const spendAlertsRepository = {
  settingsOf: async (executor: Executor, customerId: string) => {
    const [row] = await queryRows<{ amount_minor: number | null; currency: string }>(
      executor,
      sql`select monthly_spend_alert_minor as amount_minor, currency
        from account_alert_settings where customer_id = ${customerId}`,
    );
    return row;
  },

  saveSettings: (executor: Executor, customerId: string, amountMinor: number | null, now: Date) =>
    queryRows(
      executor,
      sql`insert into account_alert_settings (customer_id, monthly_spend_alert_minor, updated_at)
        values (${customerId}, ${amountMinor}, ${now.toISOString()}::timestamptz)
        on conflict (customer_id) do update
        set monthly_spend_alert_minor = excluded.monthly_spend_alert_minor,
          updated_at = excluded.updated_at`,
    ),

  /** Accounts with an amount set and no alert sent for `month` yet. */
  accountsToCheck: (executor: Executor, month: string) =>
    queryRows<SpendAlertAccount>(
      executor,
      sql`select a.customer_id, c.email, a.monthly_spend_alert_minor as amount_minor, a.currency
        from account_alert_settings a
        join customers c on c.id = a.customer_id
        where a.monthly_spend_alert_minor is not null
          and not exists (
            select 1 from spend_alerts s where s.customer_id = a.customer_id and s.month = ${month}
          )
        order by a.customer_id`,
    ),

  /** What the account's invoices raised in [from, to) ask for, in this currency (void and draft left out). */
  raisedBetween: async (
    executor: Executor,
    input: { customerId: string; currency: string; from: Date; to: Date },
  ) => {
    const [row] = await queryRows<{ amount: number }>(
      executor,
      sql`select coalesce(sum(i.amount_due), 0)::float8 as amount
        from invoices i
        join billing_customers b on b.id = i.billing_customer_id
        where b.customer_id = ${input.customerId}
          and lower(i.currency) = lower(${input.currency})
          and i.status in ('open', 'paid', 'uncollectible')
          and i.created_at >= ${input.from.toISOString()}::timestamptz
          and i.created_at < ${input.to.toISOString()}::timestamptz`,
    );
    return Number(row?.amount ?? 0);
  },

  /** The account's live subscriptions renewing after `after` and before `before` (the month's end, exclusive). */
  renewingBetween: (executor: Executor, input: { customerId: string; after: Date; before: Date }) =>
    queryRows<{ id: string }>(
      executor,
      sql`select sub.id
        from subscriptions sub
        join billing_customers b on b.id = sub.billing_customer_id
        where b.customer_id = ${input.customerId}
          and sub.status in ('active', 'paused', 'past_due')
          and sub.current_period_end > ${input.after.toISOString()}::timestamptz
          and sub.current_period_end < ${input.before.toISOString()}::timestamptz
        order by sub.id`,
    ),

  /** The alert sent for this month, if any. */
  sentFor: async (executor: Executor, customerId: string, month: string) => {
    const [row] = await queryRows<{ sent_at_ms: number }>(
      executor,
      sql`select floor(date_part('epoch', sent_at) * 1000)::float8 as sent_at_ms
        from spend_alerts where customer_id = ${customerId} and month = ${month}`,
    );
    return row ? new Date(Number(row.sent_at_ms)) : null;
  },

  /** Claims this month's alert; false when it was already sent (another run got there). */
  claim: async (
    executor: Executor,
    input: { customerId: string; month: string; amountMinor: number; now: Date },
  ) => {
    const rows = await queryRows(
      executor,
      sql`insert into spend_alerts (customer_id, month, amount_minor, sent_at)
        values (${input.customerId}, ${input.month}, ${input.amountMinor},
          ${input.now.toISOString()}::timestamptz)
        on conflict do nothing
        returning customer_id`,
    );
    return rows.length > 0;
  },

  release: (executor: Executor, customerId: string, month: string) =>
    queryRows(
      executor,
      sql`delete from spend_alerts where customer_id = ${customerId} and month = ${month}`,
    ),
};
