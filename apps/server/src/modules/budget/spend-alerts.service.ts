/**
 * The account's monthly spend alert (decision 095): the owner sets an amount; what the account
 * is billed this UK month (invoices already raised, and the billing provider's previews of the
 * renewals still to come before the month ends) is compared with it, and the owner is e-mailed
 * once per month when it reaches the amount. Claimed in spend_alerts (primary key account +
 * month) before sending, given back when sending fails: safe with two runs or two processes.
 */
import type { SpendAlertResponse } from '@farmcam/contract';
import { formatMoney } from '@farmcam/contract/rules';
import type { Database } from '../../db/client.ts';
import { auditActorOf, writeAudit } from '../../lib/audit.ts';
import { businessDay, businessDayStart } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import type { BillingProvider } from '@farmcam/billing';
import type { Notifier } from '../notifications/notifier.ts';
import type { Principal } from '../auth/principal.ts';
import { spendAlertEmail, spendAlertTitle } from './budget-mail.ts';
import { spendAlertsRepository } from './spend-alerts.repository.ts';

export interface SpendAlertsDependencies {
  db: Database;
  billing: Pick<BillingProvider, 'previewUpcomingInvoice'>;
  /** Tells the owner by the channels they chose (decision 122). */
  notifier: Notifier;
  clock: Clock;
  publicUrl: string;
}

/** The UK month of an instant (YYYY-MM) and when it begins and ends. */
export function ukMonthOf(now: Date): { month: string; start: Date; end: Date } {
  const month = businessDay(now).slice(0, 7);
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const next =
    monthNumber === 12
      ? `${year + 1}-01-01`
      : `${year}-${String(monthNumber + 1).padStart(2, '0')}-01`;
  return { month, start: businessDayStart(`${month}-01`), end: businessDayStart(next) };
}

export function createSpendAlerts(deps: SpendAlertsDependencies) {
  const { db, billing, notifier, clock, publicUrl } = deps;

  /** This UK month's bill so far and to come, in the account's currency (minor units). */
  async function monthFigures(customerId: string, currency: string) {
    const now = clock.now();
    const { month, start, end } = ukMonthOf(now);
    const raised = await spendAlertsRepository.raisedBetween(db, {
      customerId,
      currency,
      from: start,
      to: end,
    });
    let upcoming = 0;
    for (const subscription of await spendAlertsRepository.renewingBetween(db, {
      customerId,
      after: now,
      before: end,
    })) {
      const preview = await billing.previewUpcomingInvoice({ subscriptionId: subscription.id });
      if (preview && preview.currency.toLowerCase() === currency.toLowerCase()) {
        upcoming += preview.amountDue;
      }
    }
    return { month, raised, upcoming, expected: raised + upcoming };
  }

  return {
    async getSpendAlert(customerId: string): Promise<SpendAlertResponse> {
      const settings = await spendAlertsRepository.settingsOf(db, customerId);
      const currency = settings?.currency ?? 'GBP';
      const figures = await monthFigures(customerId, currency);
      const sentAt = await spendAlertsRepository.sentFor(db, customerId, figures.month);
      return {
        amountMinor: settings?.amount_minor ?? null,
        currency,
        month: figures.month,
        raisedMinor: figures.raised,
        upcomingMinor: figures.upcoming,
        expectedMinor: figures.expected,
        alertSentAt: sentAt?.toISOString() ?? null,
      };
    },

    async saveSpendAlert(
      principal: Principal,
      customerId: string,
      amountMinor: number | null,
      context: { ip: string; userAgent?: string | undefined },
    ): Promise<SpendAlertResponse> {
      await db.transaction(async (transaction) => {
        const before = (await spendAlertsRepository.settingsOf(transaction, customerId))
          ?.amount_minor;
        await spendAlertsRepository.saveSettings(transaction, customerId, amountMinor, clock.now());
        if ((before ?? null) !== amountMinor) {
          await writeAudit(transaction, {
            ...auditActorOf(principal),
            action: 'account.spend-alert',
            subjectType: 'customer',
            subjectId: customerId,
            details: { before: before ?? null, after: amountMinor, currency: 'GBP' },
            ip: context.ip,
            userAgent: context.userAgent ?? null,
          });
        }
      });
      return this.getSpendAlert(customerId);
    },

    /** The job: e-mails each account whose month reached its amount, once per UK month. */
    async sendSpendAlerts(): Promise<{ sent: number }> {
      const { month } = ukMonthOf(clock.now());
      let sent = 0;
      const failures: unknown[] = [];
      for (const account of await spendAlertsRepository.accountsToCheck(db, month)) {
        try {
          const figures = await monthFigures(account.customer_id, account.currency);
          if (figures.expected < Number(account.amount_minor)) continue;
          const claimed = await spendAlertsRepository.claim(db, {
            customerId: account.customer_id,
            month,
            amountMinor: Number(account.amount_minor),
            now: clock.now(),
          });
          if (!claimed) continue;
          const amountMinor = Number(account.amount_minor);
          try {
            const outcome = await notifier.notify({
              kind: 'spend',
              customerId: account.customer_id,
              iccid: null,
              short: {
                title: spendAlertTitle(amountMinor, account.currency),
                body: `This month's invoices come to ${formatMoney(figures.expected, account.currency)}. Nothing was stopped.`,
                path: '/dashboard',
              },
              email: (to) =>
                spendAlertEmail({
                  to,
                  amountMinor,
                  currency: account.currency,
                  figures,
                  publicUrl,
                }),
            });
            if (outcome.failures.length > 0 && !outcome.isOwnerReached) throw outcome.failures[0];
            sent += 1;
          } catch (error) {
            await spendAlertsRepository.release(db, account.customer_id, month);
            throw error;
          }
        } catch (error) {
          failures.push(error);
        }
      }
      if (failures.length > 0) {
        throw new AggregateError(failures, `${failures.length} spend alerts could not be sent`);
      }
      return { sent };
    },
  };
}

export type SpendAlerts = ReturnType<typeof createSpendAlerts>;
