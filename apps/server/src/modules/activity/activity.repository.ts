/**
 * The account's activity log read from the audit log (docs/decisions/092): one account's entries,
 * newest first, a page at a time by (at, id), with the person's e-mail and a member's role, and
 * the camera (ICCID) an entry is about. Also the retention purge.
 */
import { ukTimeZone } from '@farmcam/contract/rules';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import type { ActivityCategory } from '@farmcam/contract';
import { categorySelection, hiddenActions } from './activity-summaries.ts';

/** Where a page ends: the last entry's time (as the database keeps it, to the microsecond) and id. */
export interface ActivityCursor {
  /** `YYYY-MM-DD HH:MM:SS[.ffffff]`, UTC. */
  at: string;
  id: string;
}

export interface ActivityFilter {
  accountId: string;
  category?: ActivityCategory;
  /** Only entries by this e-mail (any case). */
  actorEmail?: string;
  iccid?: string;
  /** First and last UK day, inclusive (YYYY-MM-DD). */
  fromDay?: string;
  toDay?: string;
  before?: ActivityCursor;
  limit: number;
}

export interface ActivityRow {
  id: string;
  at: Date;
  /** `at` to the microsecond, UTC, for the cursor. */
  at_key: string;
  actor_type: 'customer' | 'member' | 'staff' | 'system';
  actor_id: string | null;
  actor_email: string | null;
  member_role: 'manager' | 'viewer' | null;
  action: string;
  details: Record<string, unknown> | null;
  iccid: string | null;
  ip: string | null;
  user_agent: string | null;
}

/**
 * The person's e-mail: as recorded, or for entries from before it was recorded (issue 16), the
 * owner's or the staff member's e-mail now.
 */
const personEmail = sql`coalesce(a.actor_email,
  case when a.actor_type = 'customer' then owner.email end,
  case when a.actor_type = 'staff' then staff_member.email end)`;

/**
 * The camera an entry is about: its SIM, or for billing entries written against the camera's
 * billing customer (before issue 16), that billing customer's SIM.
 */
const entryIccid = sql`case
  when a.subject_type = 'sim' then a.subject_id
  when a.subject_type = 'billing_customer' then
    (select s.iccid from sims s where s.billing_customer_id = a.subject_id order by s.iccid limit 1)
  end`;

/** The UTC instant a UK day starts (midnight in London, summer time or not). */
const ukDayStart = (day: string) => sql`((${day}::date)::timestamp at time zone ${ukTimeZone})`;
const ukDayEnd = (day: string) => sql`(((${day}::date) + 1)::timestamp at time zone ${ukTimeZone})`;

function categoryCondition(category: ActivityCategory): SQL {
  const selection = categorySelection(category);
  const prefix = sql`split_part(a.action, '.', 1)`;
  const unknown = sql`a.action <> all(${sql.param(selection.knownActions)}::text[])`;
  const conditions: SQL[] = [sql`a.action = any(${sql.param(selection.actions)}::text[])`];
  if (selection.prefixes.length > 0) {
    conditions.push(
      sql`(${unknown} and ${prefix} = any(${sql.param(selection.prefixes)}::text[]))`,
    );
  }
  if (selection.otherPrefixes.isIncluded) {
    conditions.push(
      sql`(${unknown} and ${prefix} <> all(${sql.param(selection.otherPrefixes.listed)}::text[]))`,
    );
  }
  return sql`(${sql.join(conditions, sql` or `)})`;
}

export const activityRepository = {
  /** One page (limit + 1 rows, so the caller knows whether there is a next one). */
  async page(executor: Executor, filter: ActivityFilter): Promise<ActivityRow[]> {
    const conditions: SQL[] = [
      sql`a.account_id = ${filter.accountId}`,
      sql`a.action <> all(${sql.param([...hiddenActions])}::text[])`,
    ];
    if (filter.category) conditions.push(categoryCondition(filter.category));
    if (filter.actorEmail) {
      conditions.push(sql`lower(${personEmail}) = lower(${filter.actorEmail})`);
    }
    if (filter.iccid) conditions.push(sql`${entryIccid} = ${filter.iccid}`);
    if (filter.fromDay) conditions.push(sql`a.at >= ${ukDayStart(filter.fromDay)}`);
    if (filter.toDay) conditions.push(sql`a.at < ${ukDayEnd(filter.toDay)}`);
    if (filter.before) {
      conditions.push(
        sql`(a.at, a.id) < ((${filter.before.at}::timestamp at time zone 'UTC'), ${filter.before.id}::uuid)`,
      );
    }
    return queryRows<ActivityRow>(
      executor,
      sql`
        select a.id, a.at,
               to_char(a.at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as at_key,
               a.actor_type, a.actor_id, ${personEmail} as actor_email, coalesce(a.actor_role, member.role) as member_role,
               a.action, a.details, ${entryIccid} as iccid, a.ip, a.user_agent
          from audit_log a
          left join customers owner on owner.id = a.account_id
          left join staff staff_member
            on a.actor_type = 'staff' and staff_member.id::text = a.actor_id
          left join account_members member
            on a.actor_type = 'member' and member.id::text = a.actor_id
         where ${sql.join(conditions, sql` and `)}
         order by a.at desc, a.id desc
         limit ${filter.limit + 1}`,
    );
  },

  /**
   * Each address the given people acted from on this account, with when they first did
   * (decision 142): what "a network they used before" is judged by. One row per person and
   * address, read by the account's index.
   */
  async firstUseOfAddresses(
    executor: Executor,
    accountId: string,
    actorIds: string[],
  ): Promise<{ actor_type: string; actor_id: string; ip: string; first_at: Date }[]> {
    if (actorIds.length === 0) return [];
    return queryRows(
      executor,
      sql`
        select a.actor_type, a.actor_id, a.ip, min(a.at) as first_at
          from audit_log a
         where a.account_id = ${accountId} and a.ip is not null
           and a.actor_id = any(${sql.param(actorIds)}::text[])
         group by a.actor_type, a.actor_id, a.ip`,
    );
  },

  /** Deletes audit entries older than `cutoff`, a batch at a time; returns how many. */
  async purgeBefore(executor: Executor, cutoff: Date, batchSize: number): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      executor,
      sql`
        delete from audit_log
         where id in (select id from audit_log where at < ${cutoff.toISOString()}::timestamptz
                       limit ${batchSize})
        returning id`,
    );
    return rows.length;
  },
};
