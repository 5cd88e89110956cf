import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { currentSubscriptionFirst } from '../../db/current-subscription.ts';
import type { SimState, SubscriptionStatus } from '../../db/schema.ts';

/** Cameras of one customer that share the facts their card state is derived from. */
export interface CameraFactsGroup {
  sim_state: SimState;
  status: SubscriptionStatus | null;
  pause_starts_on: string | null;
  pause_resumes_on: string | null;
  cameras: number;
}

export interface CustomerSummaryRow {
  id: string;
  email: string;
  created_at: string | Date;
  camera_groups: CameraFactsGroup[];
}

export const staffRepository = {
  /**
   * Customers whose e-mail contains `query`, each with its cameras (the SIMs the dashboard lists)
   * grouped by the facts of their card state: SIM state and the current subscription's status and
   * pause dates. The state itself is derived by the cameras' own rules, not here
   * (docs/decisions/081); the groups stay few (pause dates are 1sts of a month).
   */
  searchCustomers: async (executor: Executor, query: string, limit: number) => {
    const pattern = `%${query.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    return queryRows<CustomerSummaryRow>(
      executor,
      sql`
      with found as (
        select c.id, c.email, c.created_at
        from customers c
        where c.email ilike ${pattern}
        order by c.email
        limit ${limit}
      ),
      cams as (
        select s.customer_id, s.state as sim_state, sub.status,
          sub.pause_starts_on::text as pause_starts_on,
          sub.pause_resumes_on::text as pause_resumes_on
        from found f
        join sims s on s.customer_id = f.id and s.state <> 'stock'
        left join lateral (
          select sub.status, sub.pause_starts_on, sub.pause_resumes_on
          from subscriptions sub
          where sub.sim_iccid = s.iccid
          order by ${currentSubscriptionFirst('sub')}
          limit 1
        ) sub on true
      )
      select f.id, f.email, f.created_at,
        coalesce((
          select json_agg(groups)
          from (
            select sim_state, status, pause_starts_on, pause_resumes_on, count(*)::int as cameras
            from cams
            where cams.customer_id = f.id
            group by sim_state, status, pause_starts_on, pause_resumes_on
          ) groups
        ), '[]') as camera_groups
      from found f
      order by f.email`,
    );
  },

  customerExists: async (executor: Executor, customerId: string) => {
    const rows = await queryRows(executor, sql`select 1 from customers where id = ${customerId}`);
    return rows.length > 0;
  },
};
