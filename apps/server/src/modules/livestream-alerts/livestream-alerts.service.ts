/**
 * What the livestream tells its owner, and the 10-day rule (docs/requirements.md#limits,
 * docs/decisions/096, 163):
 * - day 7 without a sighting on a website: "will be switched off on <date> unless it is seen on
 *   your website", once per grace period (a new sighting on a website, or switching the schedule
 *   on again, starts a new one);
 * - day 10: the schedule is switched off, written on the account's activity log, and the owner
 *   e-mailed;
 * - scheduled clips stopped: when the schedule asked for clips for the camera's chosen number of
 *   hours (camera_watch_settings.no_clip_hours; null: off) and none arrived, once; the next clip
 *   clears it with a "clips are arriving again" e-mail.
 * Each alert is claimed by a conditional update before its e-mail, so two processes send it once;
 * a refused e-mail gives the claim back for the next run. The three alerts are the "livestream
 * clips" alerts of decision 122: the notifier tells the owner and the members who reach the
 * camera and chose them, by e-mail, push or SMS. The switch-off e-mail goes to the owner.
 */
import { unusedLivestreamDays } from '@farmcam/contract';
import { cameraNameOf, formatUkLongDay, formatUkTime } from '@farmcam/contract/rules';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client.ts';
import { systemActor, writeAudit } from '../../lib/audit.ts';
import { dayMs } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { renderEmail, type Mailer } from '../../providers/mail/mail.ts';
import { slotStartsBetween, toSchedule } from '../livestream/schedule.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { livestreamAlertsRepository as repository } from './livestream-alerts.repository.ts';

/** The warning goes out this many days into the 10 days without a sighting on a website. */
export const switchOffWarningDays = 7;

/** Why a livestream nobody watched on a website was switched off. */
export const notSeenOnWebsiteReason = 'not-seen-on-website';

export interface LivestreamAlertsDependencies {
  db: Database;
  clock: Clock;
  notifier: Notifier;
  /** The switch-off e-mail, to the owner. */
  mailer: Mailer;
  publicUrl: string;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/** "Tuesday 1 December" in the UK. */
export const ukDateText = (instant: Date) => formatUkLongDay(instant);

export function createLivestreamAlertsService(deps: LivestreamAlertsDependencies) {
  const { db, clock } = deps;

  async function send(
    iccid: string,
    build: (camera: string) => Parameters<typeof renderEmail>[0],
  ): Promise<boolean> {
    const owner = await repository.ownerOf(db, iccid);
    if (!owner) return true;
    const content = build(cameraNameOf(owner.nickname, iccid));
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
    /**
     * docs/requirements.md#limits: a schedule whose code has not been seen on a website for 10
     * days (since it was switched on) is switched off, and the customer told by e-mail.
     */
    async switchOffUnused(): Promise<{ switchedOff: number }> {
      const now = clock.now();
      const cutoff = new Date(now.getTime() - unusedLivestreamDays * dayMs);
      // Switched off and recorded on each account's activity log together (decision 092).
      const switchedOff = await db.transaction(async (transaction) => {
        const rows = await repository.switchOffUnused(
          transaction,
          cutoff,
          now,
          notSeenOnWebsiteReason,
        );
        for (const livestream of rows) {
          const owner = await repository.ownerOf(transaction, livestream.sim_iccid);
          await writeAudit(transaction, {
            ...systemActor(owner?.customer_id ?? null),
            action: 'livestream.switched-off-unused',
            subjectType: 'sim',
            subjectId: livestream.sim_iccid,
            details: { days: unusedLivestreamDays },
          });
        }
        return rows;
      });
      for (const livestream of switchedOff) {
        const owner = await repository.ownerOf(db, livestream.sim_iccid);
        if (!owner) continue;
        const cameraName = cameraNameOf(owner.nickname, livestream.sim_iccid);
        try {
          await deps.mailer.send(
            renderEmail({
              kind: 'livestream',
              to: owner.email,
              subject: `Livestream of ${cameraName} switched off`,
              heading: 'Your livestream schedule has been switched off',
              paragraphs: [
                `We have not seen the livestream code of the "${cameraName}" camera on a website in the last ${unusedLivestreamDays} days, so we have stopped its scheduled recordings to save the camera's data.`,
                'Once the code is on your website, switch the schedule back on from the Livestreaming page.',
              ],
              action: { label: 'Open Livestreaming', url: `${deps.publicUrl}/livestreaming` },
            }),
          );
        } catch (error) {
          deps.log.error({ err: error, livestreamId: livestream.id }, 'Could not send the e-mail');
        }
      }
      return { switchedOff: switchedOff.length };
    },

    /** Hourly: warns owners of livestreams 7 days without a sighting on a website. */
    async warnUnused(): Promise<{ warned: number }> {
      const now = clock.now();
      const rows = await repository.claimSwitchOffWarnings(db, {
        warnBefore: new Date(now.getTime() - switchOffWarningDays * dayMs),
        offBefore: new Date(now.getTime() - unusedLivestreamDays * dayMs),
        now,
      });
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
        if (!sent) await repository.releaseSwitchOffWarning(db, row.id, now);
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
      const rows = await repository.listClipWatches(db);
      let alerted = 0;
      let recovered = 0;
      for (const row of rows) {
        const lastClipAt = row.last_clip_at ? new Date(row.last_clip_at) : null;
        const alertedAt = row.no_clip_alerted_at ? new Date(row.no_clip_alerted_at) : null;
        if (alertedAt) {
          if (!lastClipAt || lastClipAt <= alertedAt) continue;
          if (!(await repository.clearNoClipAlert(db, row.id, alertedAt))) continue;
          recovered += 1;
          await send(row.sim_iccid, (camera) => ({
            to: '',
            subject: `Clips from ${camera} are arriving again`,
            heading: 'Livestream clips are arriving again',
            paragraphs: [
              `The "${camera}" camera delivered a livestream clip again, recorded at ${formatUkTime(lastClipAt)} on ${ukDateText(lastClipAt)} (UK time).`,
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
        if (!(await repository.claimNoClipAlert(db, row.id, now))) continue;
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
        if (!sent) await repository.clearNoClipAlert(db, row.id, now);
      }
      return { alerted, recovered };
    },
  };
}

export type LivestreamAlertsService = ReturnType<typeof createLivestreamAlertsService>;
