/**
 * What the billing cycle's replay needs to know (decision 025): the earliest instant at which
 * anything of the local engine is due. A replayed day with nothing due is skipped, which keeps a
 * two-year test clock jump to a few seconds, and changes nothing: every renewal, retry, dunning
 * step, pause start and end and SIM termination is one of these instants.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { dunningPolicy } from '../../providers/billing/dunning-policy.ts';

/** The earliest due instant later than `after` (what is due by `after` was done then). */
export async function nextDueInstant(executor: Executor, after: Date): Promise<Date | null> {
  const { overdueAfterDays, cancelAfterDays, terminateSimAfterCancelDays } = dunningPolicy;
  const since = after.toISOString();
  const [row] = await queryRows<{ due: Date | string | null }>(
    executor,
    sql`
      select min(due) as due from (
        select i.next_payment_attempt as due from invoices i
          join billing_customers c on c.id = i.billing_customer_id
         where i.status = 'open' and c.provider = 'local'
        union all
        select s.past_due_since + make_interval(days => ${overdueAfterDays})
          from subscriptions s where s.status = 'past_due'
        union all
        select s.past_due_since + make_interval(days => ${cancelAfterDays})
          from subscriptions s where s.status in ('past_due', 'overdue')
        union all
        select s.current_period_end from subscriptions s
          join billing_customers c on c.id = s.billing_customer_id
         where s.status in ('active', 'paused') and c.provider = 'local'
        union all
        select s.pause_starts_on::timestamp at time zone 'UTC' from subscriptions s
         where s.status not in ('canceled', 'incomplete')
        union all
        select s.pause_resumes_on::timestamp at time zone 'UTC' from subscriptions s
         where s.status not in ('canceled', 'incomplete')
        union all
        select s.canceled_at + make_interval(days => ${terminateSimAfterCancelDays})
          from subscriptions s join sims on sims.iccid = s.sim_iccid
         where s.status = 'canceled' and sims.state not in ('terminated', 'stock')
      ) as instants
      where due > ${since}::timestamptz`,
  );
  return row?.due ? new Date(row.due) : null;
}
