/** The SQL of notifications (decisions 122-124): people, their choices, devices and deliveries. */
import type { NotificationKind } from '@farmcam/contract';
import { and, desc, eq, gte, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import {
  notificationDeliveries,
  notificationPeople,
  notificationPreferences,
  phoneVerifications,
  pushSubscriptions,
  sims,
} from '../../db/schema.ts';

export type DeliveryRow = typeof notificationDeliveries.$inferSelect;
export type NewDelivery = typeof notificationDeliveries.$inferInsert;
export type DeliveryUpdate = Partial<NewDelivery>;
export type PersonRow = typeof notificationPeople.$inferSelect;

/** A person's channels for one kind. */
export interface ChannelChoice {
  email: boolean;
  push: boolean;
  sms: boolean;
  overridesQuietHours: boolean;
}

const personWhere = (customerId: string, memberId: string | null) =>
  and(
    eq(notificationPeople.customerId, customerId),
    memberId === null
      ? isNull(notificationPeople.memberId)
      : eq(notificationPeople.memberId, memberId),
  );

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
   * each with their choices for this kind: one statement (the rules of auth/access.ts).
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

  /** The person's row in this account, made on first use. */
  async ensurePerson(
    executor: Executor,
    customerId: string,
    memberId: string | null,
  ): Promise<PersonRow> {
    const where = personWhere(customerId, memberId);
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
      .where(personWhere(customerId, memberId));
    return found;
  },

  async findPersonById(executor: Executor, personId: string) {
    const [found] = await executor
      .select()
      .from(notificationPeople)
      .where(eq(notificationPeople.id, personId));
    return found;
  },

  /** The account's cameras (not stock), by name then SIM number. */
  accountCameras: (executor: Executor, customerId: string) =>
    executor
      .select({ iccid: sims.iccid, nickname: sims.nickname })
      .from(sims)
      .where(and(eq(sims.customerId, customerId), ne(sims.state, 'stock')))
      .orderBy(sims.nickname, sims.iccid),

  // Choices and quiet hours.

  preferencesOf: (executor: Executor, personId: string) =>
    executor
      .select()
      .from(notificationPreferences)
      .where(eq(notificationPreferences.personId, personId)),

  async preferenceOf(executor: Executor, personId: string, kind: NotificationKind) {
    const [row] = await executor
      .select()
      .from(notificationPreferences)
      .where(
        and(eq(notificationPreferences.personId, personId), eq(notificationPreferences.kind, kind)),
      );
    return row;
  },

  /** The person's channels for a kind, replacing what they chose before. */
  savePreference: (
    executor: Executor,
    input: { personId: string; kind: NotificationKind; choice: ChannelChoice; now: Date },
  ) => {
    const values = { ...input.choice, updatedAt: input.now };
    return executor
      .insert(notificationPreferences)
      .values({ personId: input.personId, kind: input.kind, ...values })
      .onConflictDoUpdate({
        target: [notificationPreferences.personId, notificationPreferences.kind],
        set: values,
      });
  },

  /** The e-mail channel of a kind only; a kind never chosen gets `otherwise` for the rest. */
  saveEmailChoice: (
    executor: Executor,
    input: {
      personId: string;
      kind: NotificationKind;
      isOn: boolean;
      otherwise: ChannelChoice;
      now: Date;
    },
  ) =>
    executor
      .insert(notificationPreferences)
      .values({
        personId: input.personId,
        kind: input.kind,
        ...input.otherwise,
        email: input.isOn,
        updatedAt: input.now,
      })
      .onConflictDoUpdate({
        target: [notificationPreferences.personId, notificationPreferences.kind],
        set: { email: input.isOn, updatedAt: input.now },
      }),

  saveQuietHours: (
    executor: Executor,
    personId: string,
    quietHours: { startMinute: number; endMinute: number } | null,
    now: Date,
  ) =>
    executor
      .update(notificationPeople)
      .set({
        quietStartMinute: quietHours?.startMinute ?? null,
        quietEndMinute: quietHours?.endMinute ?? null,
        updatedAt: now,
      })
      .where(eq(notificationPeople.id, personId)),

  // Push devices.

  /** The person's devices that take push, oldest first. */
  pushDevicesOf: (executor: Executor, personId: string) =>
    executor
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.personId, personId))
      .orderBy(pushSubscriptions.createdAt),

  async findPushDevice(executor: Executor, deviceId: string) {
    const [row] = await executor
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.id, deviceId));
    return row;
  },

  /** One row per endpoint: an endpoint seen before moves to this person. */
  savePushDevice: (
    executor: Executor,
    input: { endpoint: string; personId: string; p256dh: string; auth: string; label: string },
  ) => {
    const { endpoint, ...values } = input;
    return executor
      .insert(pushSubscriptions)
      .values({ endpoint, ...values })
      .onConflictDoUpdate({ target: pushSubscriptions.endpoint, set: values });
  },

  /** Whether the device was the person's and is gone now. */
  async removePersonsPushDevice(executor: Executor, personId: string, deviceId: string) {
    const removed = await executor
      .delete(pushSubscriptions)
      .where(and(eq(pushSubscriptions.id, deviceId), eq(pushSubscriptions.personId, personId)))
      .returning({ id: pushSubscriptions.id });
    return removed.length > 0;
  },

  forgetPushDevice: (executor: Executor, deviceId: string) =>
    executor.delete(pushSubscriptions).where(eq(pushSubscriptions.id, deviceId)),

  markPushDelivered: (executor: Executor, deviceId: string, at: Date) =>
    executor
      .update(pushSubscriptions)
      .set({ lastSuccessAt: at })
      .where(eq(pushSubscriptions.id, deviceId)),

  // Phones.

  async pendingPhoneOf(executor: Executor, personId: string) {
    const [row] = await executor
      .select()
      .from(phoneVerifications)
      .where(eq(phoneVerifications.personId, personId));
    return row;
  },

  /** The number being verified and its code's hash; a new code replaces the last. */
  savePendingPhone: (
    executor: Executor,
    personId: string,
    values: { phone: string; codeHash: string; expiresAt: Date; attempts: number; createdAt: Date },
  ) =>
    executor
      .insert(phoneVerifications)
      .values({ personId, ...values })
      .onConflictDoUpdate({ target: phoneVerifications.personId, set: values }),

  forgetPendingPhone: (executor: Executor, personId: string) =>
    executor.delete(phoneVerifications).where(eq(phoneVerifications.personId, personId)),

  /**
   * Counts one try at the code, unless `maxAttempts` were used already (parallel guesses cannot
   * exceed them): the tries used, or undefined when none was left.
   */
  async countPhoneCodeTry(executor: Executor, personId: string, maxAttempts: number) {
    const [counted] = await executor
      .update(phoneVerifications)
      .set({ attempts: sql`${phoneVerifications.attempts} + 1` })
      .where(
        and(
          eq(phoneVerifications.personId, personId),
          sql`${phoneVerifications.attempts} < ${maxAttempts}`,
        ),
      )
      .returning({ attempts: phoneVerifications.attempts });
    return counted?.attempts;
  },

  /** The person's verified phone (texts allowed again), or none. */
  setPhone: (executor: Executor, personId: string, phone: string | null, now: Date) =>
    executor
      .update(notificationPeople)
      .set({
        phone,
        phoneVerifiedAt: phone === null ? null : now,
        smsStoppedAt: null,
        updatedAt: now,
      })
      .where(eq(notificationPeople.id, personId)),

  /** The provider says this person's phone opted out (a STOP we did not see). */
  stopPersonsSms: (executor: Executor, personId: string, at: Date) =>
    executor
      .update(notificationPeople)
      .set({ smsStoppedAt: at })
      .where(eq(notificationPeople.id, personId)),

  /** STOP (stoppedAt) or START (null) from a verified phone: the people it belongs to. */
  setSmsStoppedByPhone: (
    executor: Executor,
    phone: string,
    stoppedAt: Date | null,
    now: Date,
  ): Promise<{ id: string }[]> =>
    executor
      .update(notificationPeople)
      .set({ smsStoppedAt: stoppedAt, updatedAt: now })
      .where(
        and(eq(notificationPeople.phone, phone), isNotNull(notificationPeople.phoneVerifiedAt)),
      )
      .returning({ id: notificationPeople.id }),

  // Deliveries.

  queueDeliveries: async (executor: Executor, rows: NewDelivery[]) => {
    if (rows.length > 0) await executor.insert(notificationDeliveries).values(rows);
  },

  /**
   * Claims up to `limit` due rows (several workers split them, FOR UPDATE SKIP LOCKED); a claim
   * older than `staleBefore` belongs to a worker that died and is taken again.
   */
  async claimDueDeliveries(
    executor: Executor,
    input: { now: Date; staleBefore: Date; limit: number },
  ): Promise<DeliveryRow[]> {
    const claimed = await queryRows<{ id: string }>(
      executor,
      sql`update notification_deliveries set claimed_at = ${input.now.toISOString()}, attempts = attempts + 1
          where id in (
            select id from notification_deliveries
            where status = 'queued' and due_at <= ${input.now.toISOString()}
              and (claimed_at is null or claimed_at < ${input.staleBefore.toISOString()})
            order by due_at limit ${input.limit}
            for update skip locked)
          returning id`,
    );
    if (claimed.length === 0) return [];
    return executor
      .select()
      .from(notificationDeliveries)
      .where(
        inArray(
          notificationDeliveries.id,
          claimed.map((row) => row.id),
        ),
      );
  },

  /** Writes a claimed row's outcome; only the claim's holder does (not a worker that overran it). */
  settleDelivery: (executor: Executor, row: DeliveryRow, update: DeliveryUpdate) =>
    executor
      .update(notificationDeliveries)
      .set({ ...update, claimedAt: null })
      .where(
        and(
          eq(notificationDeliveries.id, row.id),
          eq(notificationDeliveries.claimedAt, row.claimedAt!),
        ),
      ),

  /** Texts sent to the person since `since` (their UK day's start: the daily limit). */
  async smsSentSince(executor: Executor, personId: string, since: Date): Promise<number> {
    const [row] = await executor
      .select({ count: sql<number>`count(*)::int` })
      .from(notificationDeliveries)
      .where(
        and(
          eq(notificationDeliveries.personId, personId),
          eq(notificationDeliveries.channel, 'sms'),
          gte(notificationDeliveries.sentAt, since),
        ),
      );
    return Number(row?.count ?? 0);
  },

  /** The person's failed deliveries since `since`, newest first. */
  failuresSince: (executor: Executor, personId: string, since: Date, limit: number) =>
    executor
      .select()
      .from(notificationDeliveries)
      .where(
        and(
          eq(notificationDeliveries.personId, personId),
          eq(notificationDeliveries.status, 'failed'),
          gte(notificationDeliveries.createdAt, since),
        ),
      )
      .orderBy(desc(notificationDeliveries.createdAt))
      .limit(limit),

  /**
   * People with texts over their daily limit not summarised yet, whose last summary e-mail is
   * older than `summarisedBefore`, with the address to write to.
   */
  peopleOwedSmsSummary: (executor: Executor, summarisedBefore: Date) =>
    queryRows<{ person_id: string; email: string }>(
      executor,
      sql`select distinct d.person_id, coalesce(m.email, c.email) as email
          from notification_deliveries d
          join notification_people p on p.id = d.person_id
          join customers c on c.id = p.customer_id
          left join account_members m on m.id = p.member_id
          where d.status = 'over-limit' and d.summarised_at is null
            and (p.sms_summary_sent_at is null
              or p.sms_summary_sent_at < ${summarisedBefore.toISOString()})`,
    ),

  unsummarisedOverLimit: (executor: Executor, personId: string) =>
    executor
      .select()
      .from(notificationDeliveries)
      .where(
        and(
          eq(notificationDeliveries.personId, personId),
          eq(notificationDeliveries.status, 'over-limit'),
          isNull(notificationDeliveries.summarisedAt),
        ),
      )
      .orderBy(notificationDeliveries.createdAt),

  /** The summary e-mail went out: its rows and the person's last summary. */
  async markSummarised(executor: Executor, personId: string, deliveryIds: string[], now: Date) {
    await executor
      .update(notificationDeliveries)
      .set({ summarisedAt: now })
      .where(inArray(notificationDeliveries.id, deliveryIds));
    await executor
      .update(notificationPeople)
      .set({ smsSummarySentAt: now })
      .where(eq(notificationPeople.id, personId));
  },

  /** The provider's report of a text we sent: only a row still "sent" changes. */
  recordSmsOutcome: (executor: Executor, providerMessageId: string, update: DeliveryUpdate) =>
    executor
      .update(notificationDeliveries)
      .set(update)
      .where(
        and(
          eq(notificationDeliveries.providerMessageId, providerMessageId),
          eq(notificationDeliveries.status, 'sent'),
        ),
      ),

  /** The queued texts of these people will not go out. */
  skipQueuedSms: (executor: Executor, personIds: string[], error: string) =>
    executor
      .update(notificationDeliveries)
      .set({ status: 'skipped', error })
      .where(
        and(
          inArray(notificationDeliveries.personId, personIds),
          eq(notificationDeliveries.channel, 'sms'),
          eq(notificationDeliveries.status, 'queued'),
        ),
      ),

  /** Deletes settled rows made before `before`; how many. */
  async purgeSettledBefore(executor: Executor, before: Date): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      executor,
      sql`delete from notification_deliveries where status <> 'queued' and created_at < ${before.toISOString()} returning id`,
    );
    return rows.length;
  },
};
