/**
 * The livestream's own e-mails to its owner (docs/decisions/096):
 * - day 7 of the 10-day rule: "will be switched off on <date> unless it is seen on your website",
 *   once per grace period (a new sighting on a website, or switching the schedule on again,
 *   starts a new one);
 * - scheduled clips stopped: when the schedule asked for clips for the camera's chosen number of
 *   hours (camera_watch_settings.no_clip_hours; null: off) and none arrived, once; the next clip
 *   clears it with a "clips are arriving again" e-mail.
 * Each is claimed by a conditional update before its e-mail, so two processes send it once; a
 * refused e-mail gives the claim back for the next run. All three are the "livestream clips"
 * alerts of decision 122: the notifier tells the owner and the members who reach the camera and
 * chose them, by e-mail, push or SMS.
 */
import { unusedLivestreamDays } from '@farmcam/contract';
import type { FastifyBaseLogger } from 'fastify';
import { queryRows, type Database } from '../../db/client.ts';
import { dayMs } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { renderEmail } from '../../providers/mail/mail.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { slotStartsBetween, toSchedule } from './schedule.ts';
import { sql } from 'drizzle-orm';

/** The warning goes out this many days into the 10 days without a sighting. */
export const switchOffWarningDays = 7;

export interface LivestreamAlertsDependencies {
  db: Database;
  clock: Clock;
  notifier: Notifier;
  publicUrl: string;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

const ukLongDate = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  weekday: 'long',
  day: 'numeric',
  month: 'long',
});

/** "Tuesday 1 December" in the UK. */
export const ukDateText = (instant: Date) => ukLongDate.format(instant).replace(',', '');

interface OwnerRow {
  customer_id: string;
  email: string;
  nickname: string | null;
}

export function createLivestreamAlertsService(deps: LivestreamAlertsDependencies) {
  const { db, clock } = deps;

  async function ownerOf(iccid: string): Promise<OwnerRow | undefined> {
    const [owner] = await queryRows<OwnerRow>(
      db,
      sql`select customers.id as customer_id, customers.email, sims.nickname from sims
          join customers on customers.id = sims.customer_id where sims.iccid = ${iccid}`,
    );
    return owner;
  }

  async function send(
    iccid: string,
    build: (camera: string) => Parameters<typeof renderEmail>[0],
  ): Promise<boolean> {
    const owner = await ownerOf(iccid);
    if (!owner) return true;
    const content = build(owner.nickname ?? 'your camera');
    const outcome = await deps.notifier.notify({
      kind: 'livestream-clips',
      customerId: owner.customer_id,
      iccid,
      email: (to) => renderEmail({ ...content, to, kind: 'livestream' }),
      short: { title: content.subject, body: content.paragraphs[0] ?? '', path: '/livestreaming' },
    });
    // The owner's e-mail decides: a member's refused one is logged, not sent again to everyone.
    for (const error of outcome.failures) {
      deps.log.error({ err: error, iccid }, 'Could not send the livestream e-mail');
    }
    return outcome.isOwnerReached;
  }

  return {
    /** Hourly: warns owners of livestreams 7 days without a sighting on a website. */
    async warnUnused(): Promise<{ warned: number }> {
      const now = clock.now();
      const warnBefore = new Date(now.getTime() - switchOffWarningDays * dayMs);
      const offBefore = new Date(now.getTime() - unusedLivestreamDays * dayMs);
      const since = sql`greatest(coalesce(last_seen_on_site_at, activated_at), activated_at)`;
      const rows = await queryRows<{ id: string; sim_iccid: string; since: Date | string }>(
        db,
        sql`update livestreams set switch_off_warned_at = ${now.toISOString()}
            where is_active
              and ${since} < ${warnBefore.toISOString()}
              and ${since} >= ${offBefore.toISOString()}
              and (switch_off_warned_at is null or switch_off_warned_at < ${since})
            returning id, sim_iccid, ${since} as since`,
      );
      for (const row of rows) {
        const switchOffAt = new Date(new Date(row.since).getTime() + unusedLivestreamDays * dayMs);
        const sent = await send(row.sim_iccid, (camera) => ({
          to: '',
          subject: `Livestream of ${camera} will be switched off on ${ukDateText(switchOffAt)}`,
          heading: `Your livestream will be switched off on ${ukDateText(switchOffAt)}`,
          paragraphs: [
            `We have not seen the livestream of the "${camera}" camera on a website for ${switchOffWarningDays} days. Its scheduled recordings will be switched off on ${ukDateText(switchOffAt)} unless it is seen on your website, to save the camera's data.`,
            'If the code is on your website, open the page once so we see it. If you no longer need the livestream, you need do nothing.',
          ],
          action: { label: 'Open Livestreaming', url: `${deps.publicUrl}/livestreaming` },
        }));
        if (!sent) {
          await db.execute(
            sql`update livestreams set switch_off_warned_at = null
                where id = ${row.id} and switch_off_warned_at = ${now.toISOString()}`,
          );
        }
      }
      return { warned: rows.length };
    },

    /**
     * E-mails the owner once when a scheduled livestream has delivered no clip for the hours the
     * camera's settings say (only hours its schedule asked for a clip count), and once when clips
     * arrive again.
     */
    async alertMissingClips(): Promise<{ alerted: number; recovered: number }> {
      const now = clock.now();
      const rows = await queryRows<{
        id: string;
        sim_iccid: string;
        is_active: boolean;
        schedule_hours: number[];
        schedule_days: string[];
        activated_at: Date | string | null;
        no_clip_alerted_at: Date | string | null;
        no_clip_hours: number;
        last_clip_at: Date | string | null;
      }>(
        db,
        sql`select l.id, l.sim_iccid, l.is_active, l.schedule_hours, l.schedule_days, l.activated_at,
              l.no_clip_alerted_at, w.no_clip_hours,
              (select max(c.recorded_at) from clips c
                where c.livestream_id = l.id and c.status = 'ready') as last_clip_at
            from livestreams l
            join camera_watch_settings w on w.sim_iccid = l.sim_iccid
            where l.configured_at is not null
              and (w.no_clip_hours is not null or l.no_clip_alerted_at is not null)`,
      );
      let alerted = 0;
      let recovered = 0;
      for (const row of rows) {
        const lastClipAt = row.last_clip_at ? new Date(row.last_clip_at) : null;
        const alertedAt = row.no_clip_alerted_at ? new Date(row.no_clip_alerted_at) : null;
        if (alertedAt) {
          if (!lastClipAt || lastClipAt <= alertedAt) continue;
          const cleared = await queryRows<{ id: string }>(
            db,
            sql`update livestreams set no_clip_alerted_at = null
                where id = ${row.id} and no_clip_alerted_at = ${alertedAt.toISOString()}
                returning id`,
          );
          if (cleared.length === 0) continue;
          recovered += 1;
          await send(row.sim_iccid, (camera) => ({
            to: '',
            subject: `Clips from ${camera} are arriving again`,
            heading: 'Livestream clips are arriving again',
            paragraphs: [
              `The "${camera}" camera delivered a livestream clip again, recorded at ${lastClipAt.toLocaleTimeString('en-GB', { timeZone: 'Europe/London', hour: '2-digit', minute: '2-digit' })} on ${ukDateText(lastClipAt)} (UK time).`,
            ],
            action: { label: 'Open Livestreaming', url: `${deps.publicUrl}/livestreaming` },
          }));
          continue;
        }
        const hours = row.no_clip_hours;
        const activatedAt = row.activated_at ? new Date(row.activated_at) : null;
        // Off, or not asked for clips: nothing to miss.
        if (!hours || !activatedAt) continue;
        if (!row.is_active) continue;
        const since = new Date(Math.max(lastClipAt?.getTime() ?? 0, activatedAt.getTime()) + 1);
        // A slot's hour must be over before its clip counts as missing.
        const missed = slotStartsBetween(
          toSchedule(row.schedule_hours, row.schedule_days),
          since,
          new Date(now.getTime() - 3_600_000 + 1),
        );
        if (missed.length < hours) continue;
        const claimed = await queryRows<{ id: string }>(
          db,
          sql`update livestreams set no_clip_alerted_at = ${now.toISOString()}
              where id = ${row.id} and no_clip_alerted_at is null returning id`,
        );
        if (claimed.length === 0) continue;
        alerted += 1;
        const sent = await send(row.sim_iccid, (camera) => ({
          to: '',
          subject: `No livestream clips from ${camera} for ${hours} scheduled hours`,
          heading: 'Your camera has stopped delivering livestream clips',
          paragraphs: [
            `The "${camera}" camera has not delivered a livestream clip for the last ${missed.length} hours its schedule asked for one${lastClipAt ? ` (the last one was recorded on ${ukDateText(lastClipAt)})` : ''}.`,
            'Check that the camera has power and signal, and that its stream is reachable: the Livestreaming page can record a clip now to test it. We will tell you when clips arrive again.',
          ],
          action: { label: 'Open Livestreaming', url: `${deps.publicUrl}/livestreaming` },
        }));
        if (!sent) {
          await db.execute(
            sql`update livestreams set no_clip_alerted_at = null
                where id = ${row.id} and no_clip_alerted_at = ${now.toISOString()}`,
          );
        }
      }
      return { alerted, recovered };
    },
  };
}

export type LivestreamAlertsService = ReturnType<typeof createLivestreamAlertsService>;
