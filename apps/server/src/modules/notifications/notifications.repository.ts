/** The SQL of notifications (decisions 122-124): people, their choices, devices and deliveries. */
import type { NotificationKind } from '@farmcam/contract';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { notificationPeople } from '../../db/schema.ts';

/** Someone an alert may reach, with their choices for its kind (null: the defaults). */
export interface AlertRecipient {
  role: 'owner' | 'manager' | 'viewer';
  member_id: string | null;
  email: string;
  person_id: string | null;
  quiet_start_minute: number | null;
  quiet_end_minute: number | null;
  phone: string | null;
  phone_verified_at: Date | string | null;
  sms_stopped_at: Date | string | null;
  pref_email: boolean | null;
  pref_push: boolean | null;
  pref_sms: boolean | null;
  pref_overrides: boolean | null;
}

export const notificationsRepository = {
  /**
   * The owner, and (for a camera's alert) the accepted, current members who reach the camera,
   * each with their choices for this kind: one statement (the rules of members/access.ts).
   */
  recipients: (
    executor: Executor,
    input: {
      customerId: string;
      kind: NotificationKind;
      /** Null: the owner only. */
      iccid: string | null;
      now: Date;
    },
  ) =>
    queryRows<AlertRecipient>(
      executor,
      sql`
      select 'owner' as role, null::uuid as member_id, c.email, p.id as person_id,
        p.quiet_start_minute, p.quiet_end_minute, p.phone, p.phone_verified_at, p.sms_stopped_at,
        pref.email as pref_email, pref.push as pref_push, pref.sms as pref_sms,
        pref.overrides_quiet_hours as pref_overrides
      from customers c
      left join notification_people p on p.customer_id = c.id and p.member_id is null
      left join notification_preferences pref on pref.person_id = p.id and pref.kind = ${input.kind}
      where c.id = ${input.customerId}
      union all
      select m.role, m.id, m.email, p.id,
        p.quiet_start_minute, p.quiet_end_minute, p.phone, p.phone_verified_at, p.sms_stopped_at,
        pref.email, pref.push, pref.sms, pref.overrides_quiet_hours
      from account_members m
      left join notification_people p on p.member_id = m.id
      left join notification_preferences pref on pref.person_id = p.id and pref.kind = ${input.kind}
      where ${input.iccid}::text is not null
        and m.customer_id = ${input.customerId}
        and m.accepted_at is not null and m.removed_at is null
        and (m.access_until is null or m.access_until > ${input.now.toISOString()}::timestamptz)
        and (m.all_cameras or exists (
          select 1 from account_member_cameras mc where mc.member_id = m.id and mc.iccid = ${input.iccid}
        ))
      order by member_id nulls first, email`,
    ),

  pushTargets: (executor: Executor, personId: string) =>
    queryRows<{ id: string }>(
      executor,
      sql`select id from push_subscriptions where person_id = ${personId} order by created_at`,
    ),

  /** The person's row in this account, made on first use. */
  async ensurePerson(
    executor: Executor,
    customerId: string,
    memberId: string | null,
  ): Promise<typeof notificationPeople.$inferSelect> {
    const where = and(
      eq(notificationPeople.customerId, customerId),
      memberId === null
        ? isNull(notificationPeople.memberId)
        : eq(notificationPeople.memberId, memberId),
    );
    const [found] = await executor.select().from(notificationPeople).where(where);
    if (found) return found;
    await executor
      .insert(notificationPeople)
      .values({ customerId, memberId })
      .onConflictDoNothing();
    const [made] = await executor.select().from(notificationPeople).where(where);
    return made!;
  },

  async findPerson(executor: Executor, customerId: string, memberId: string | null) {
    const [found] = await executor
      .select()
      .from(notificationPeople)
      .where(
        and(
          eq(notificationPeople.customerId, customerId),
          memberId === null
            ? isNull(notificationPeople.memberId)
            : eq(notificationPeople.memberId, memberId),
        ),
      );
    return found;
  },
};
