/**
 * The account's Activity screen (docs/decisions/092): its entries as the owner reads them (a
 * sentence and a category from activity-summaries.ts, who acted, marked as staff when staff
 * acted inside the portal), a page at a time, and the retention of the log.
 */
import type { ActivityEntry, ActivityResponse, ActivityCategory } from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import { dayMs } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  activityRepository,
  type ActivityCursor,
  type ActivityRow,
} from './activity.repository.ts';
import { categoryOf, summaryOf } from './activity-summaries.ts';
import { networkOf, placeOf } from './network-place.ts';

/** The shortest retention the configuration accepts: 13 months, however long they are. */
export const minimumRetentionDays = 397;

const purgeBatchSize = 5000;

const cursorPattern = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeCursor(cursor: ActivityCursor): string {
  return Buffer.from(`${cursor.at}|${cursor.id}`, 'utf8').toString('base64url');
}

/** The cursor a previous page gave, or a 400 in words: a cursor is never made by hand. */
export function decodeCursor(value: string): ActivityCursor {
  const [at = '', id = '', ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !cursorPattern.test(at) || !uuidPattern.test(id)) {
    throw new AppError(
      'VALIDATION_FAILED',
      'That page of the activity log could not be found. Start again from the newest entries.',
    );
  }
  return { at, id };
}

/** When each person first acted from each network, by "type:id". */
type FirstUses = Map<string, Map<string, number>>;

const personKey = (row: { actor_type: string; actor_id: string | null }) =>
  `${row.actor_type}:${row.actor_id ?? ''}`;

function toEntry(row: ActivityRow, firstUses: FirstUses): ActivityEntry {
  const isStaff = row.actor_type === 'staff';
  const kind =
    row.actor_type === 'customer'
      ? 'owner'
      : row.actor_type === 'member'
        ? (row.member_role ?? 'viewer')
        : row.actor_type;
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    category: categoryOf(row.action),
    action: row.action,
    summary: summaryOf(row.action, row.details),
    actor: {
      kind,
      email: kind === 'system' ? null : row.actor_email,
      staffEmail: isStaff ? row.actor_email : null,
    },
    iccid: row.iccid,
    ip: row.ip,
    place: placeOf(row.ip, (network) => {
      const first = firstUses.get(personKey(row))?.get(network);
      return first !== undefined && first < new Date(row.at).getTime();
    }),
    userAgent: row.user_agent,
  };
}

export function createActivityService(deps: {
  db: Database;
  clock: Clock;
  /** How long entries are kept (ACTIVITY_RETENTION_DAYS, at least 13 months). */
  retentionDays: number;
}) {
  const { db } = deps;
  return {
    async list(
      accountId: string,
      query: {
        category?: ActivityCategory | undefined;
        actor?: string | undefined;
        iccid?: string | undefined;
        from?: string | undefined;
        to?: string | undefined;
        before?: string | undefined;
        limit: number;
      },
    ): Promise<ActivityResponse> {
      if (query.from && query.to && query.from > query.to) {
        throw new AppError('VALIDATION_FAILED', 'The first day must not be after the last day.');
      }
      const rows = await activityRepository.page(db, {
        accountId,
        category: query.category,
        actorEmail: query.actor || undefined,
        iccid: query.iccid,
        fromDay: query.from,
        toDay: query.to,
        before: query.before ? decodeCursor(query.before) : undefined,
        limit: query.limit,
      });
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      const firstUses: FirstUses = new Map();
      const actorIds = [
        ...new Set(page.filter((row) => row.ip !== null).map((row) => row.actor_id ?? '')),
      ].filter((id) => id !== '');
      for (const use of await activityRepository.firstUseOfAddresses(db, accountId, actorIds)) {
        const network = networkOf(use.ip);
        if (network === null) continue;
        const key = personKey(use);
        const networks = firstUses.get(key) ?? new Map<string, number>();
        const at = new Date(use.first_at).getTime();
        networks.set(network, Math.min(at, networks.get(network) ?? Infinity));
        firstUses.set(key, networks);
      }
      return {
        entries: page.map((row) => toEntry(row, firstUses)),
        nextCursor:
          rows.length > query.limit && last ? encodeCursor({ at: last.at_key, id: last.id }) : null,
      };
    },

    /** Deletes entries older than the retention, a batch at a time; returns how many. */
    async purgeExpired(): Promise<{ deleted: number }> {
      const days = Math.max(deps.retentionDays, minimumRetentionDays);
      const cutoff = new Date(deps.clock.now().getTime() - days * dayMs);
      let deleted = 0;
      for (;;) {
        const batch = await activityRepository.purgeBefore(db, cutoff, purgeBatchSize);
        deleted += batch;
        if (batch < purgeBatchSize) return { deleted };
      }
    },
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;
