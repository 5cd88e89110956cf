import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';

export interface CustomerSummaryRow {
  id: string;
  email: string;
  created_at: string | Date;
  camera_count: number;
  active: number;
  paused: number;
  attention: number;
  terminated: number;
}

export const staffRepository = {
  /**
   * Customers whose e-mail contains `query`, with their cameras counted by state. A camera's
   * state is its latest subscription's status together with its SIM state (spec §4).
   */
  searchCustomers: async (executor: Executor, query: string, limit: number) => {
    const pattern = `%${query.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    return queryRows<CustomerSummaryRow>(
      executor,
      sql`
      with latest as (
        select distinct on (s.iccid) s.iccid, s.customer_id, s.state as sim_state, sub.status as sub_status
        from sims s
        left join subscriptions sub on sub.sim_iccid = s.iccid
        where s.customer_id is not null
        order by s.iccid, sub.created_at desc nulls last
      )
      select c.id, c.email, c.created_at,
        count(l.iccid)::int as camera_count,
        count(*) filter (where l.sub_status = 'active')::int as active,
        count(*) filter (where l.sub_status = 'paused')::int as paused,
        count(*) filter (where l.sub_status in ('past_due', 'overdue')
          or (l.sub_status = 'canceled' and l.sim_state in ('active', 'paused'))
          or (l.sub_status is null and l.iccid is not null))::int as attention,
        count(*) filter (where l.sim_state = 'terminated')::int as terminated
      from customers c
      left join latest l on l.customer_id = c.id
      where c.email ilike ${pattern}
      group by c.id
      order by c.email
      limit ${limit}`,
    );
  },

  customerExists: async (executor: Executor, customerId: string) => {
    const rows = await queryRows(executor, sql`select 1 from customers where id = ${customerId}`);
    return rows.length > 0;
  },
};
