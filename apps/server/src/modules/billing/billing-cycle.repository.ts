/**
 * What the billing cycle's replay reads and writes (decision 025): where it got to, the pause
 * dates it applies, and the earliest instant at which anything of the local engine is due. A
 * replayed day with nothing due is skipped, which keeps a two-year test clock jump to a few
 * seconds, and changes nothing: every renewal, retry, dunning step, pause start and end and SIM
 * termination is one of these instants.
 */
import { and, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { appSettings, subscriptions } from '../../db/schema.ts';
import { dunningPolicy } from '@farmcam/billing/dunning-policy';

/** Where the billing cycle got to (billing time), shared by every process: a gap is replayed. */
const cycleReachedKey = 'billing-cycle-reached-at';

/** The billing time the cycle last reached, if it ever ran. */
export async function cycleReachedAt(executor: Executor): Promise<Date | undefined> {
  const [reached] = await executor
    .select()
    .from(appSettings)
    .where(eq(appSettings.key, cycleReachedKey));
  return typeof reached?.value === 'string' ? new Date(reached.value) : undefined;
}

/** Records that the cycle reached `at`; never back, should a slower process finish an older step. */
export async function recordCycleReached(executor: Executor, at: Date): Promise<void> {
  await executor
    .insert(appSettings)
    .values({ key: cycleReachedKey, value: at.toISOString() })
    .onConflictDoUpdate({
      target: appSettings.key,
      set: { value: at.toISOString() },
      setWhere: sql`${appSettings.value} #>> '{}' < ${at.toISOString()}`,
    });
}

/**
 * Stored status follows the pause dates on the UK day `today`: paused from the start date,
 * active again from the resume date.
 */
export async function applyPauseTransitions(
  executor: Executor,
  today: string,
  at: Date,
): Promise<void> {
  await executor
    .update(subscriptions)
    .set({ status: 'paused', updatedAt: at })
    .where(
      and(
        eq(subscriptions.status, 'active'),
        lte(subscriptions.pauseStartsOn, today),
        gt(subscriptions.pauseResumesOn, today),
      ),
    );
  await executor
    .update(subscriptions)
    .set({ status: 'active', pauseStartsOn: null, pauseResumesOn: null, updatedAt: at })
    .where(
      and(
        inArray(subscriptions.status, ['active', 'paused']),
        lte(subscriptions.pauseResumesOn, today),
      ),
    );
}

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
