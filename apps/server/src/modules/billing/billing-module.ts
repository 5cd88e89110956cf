/**
 * Wires billing together: the provider BILLING named (chosen by createBillingProvider in the
 * composition root), the service, and the cycle the billing job runs. The composition root
 * (process/compose.ts) creates it once; the routes, the billing jobs and the tests use that
 * instance (decision 087).
 */
import type { FastifyBaseLogger } from 'fastify';
import { and, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import type { Config } from '../../config/config.ts';
import { advisoryLockKeys, type Database, type DatabaseHandle } from '../../db/client.ts';
import { appSettings, subscriptions } from '../../db/schema.ts';
import type { Notifier } from '../notifications/notifier.ts';
import type { BillingProvider } from '../../providers/billing/billing.ts';
import type { BillingProviderChoice } from '../../providers/billing/create-billing-provider.ts';
import type { LocalBillingEngine } from '../../providers/billing/local/local-billing-engine.ts';
import type { StripeBilling } from '../../providers/billing/stripe/stripe-billing.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import { createBillingService, type BillingService } from './billing.service.ts';
import { nextDueInstant } from './billing-cycle.repository.ts';
import { cycleSteps } from './billing-cycle-steps.ts';
import { businessDay } from './pause-rules.ts';

/** Where the billing cycle got to (billing time), shared by every process: a gap is replayed. */
const cycleReachedKey = 'billing-cycle-reached-at';

export interface BillingModule {
  provider: BillingProvider;
  service: BillingService;
  /** Set with BILLING=local: the engine behind the hosted pages and the test clock. */
  engine: LocalBillingEngine | undefined;
  /** Set with BILLING=stripe: the adapter behind the webhook route. */
  stripe: StripeBilling | undefined;
  /**
   * The billing cycle up to now: renewals and dunning (local engine), pause transitions, SIM
   * state. Time since the last run (a test clock jump, a server that was down) is replayed day
   * by day, so each renewal, retry, pause and resume happens on its own date (decision 025).
   */
  runCycle(): Promise<{ renewed: number; simsChanged: number }>;
}

export function createBillingModule(deps: {
  config: Config;
  db: Database;
  /** The provider BILLING chose (process/compose.ts calls createBillingProvider). */
  billingProvider: BillingProviderChoice;
  connectivity: ConnectivityPlatform;
  /**
   * Tells customers about failed renewal payments (local engine; Stripe e-mails its own) and the
   * end of dunning (either provider).
   */
  notifier?: Notifier;
  /** The database's advisory lock (DatabaseHandle.withAdvisoryLock): one cycle at a time. */
  runAlone: DatabaseHandle['withAdvisoryLock'];
  log: FastifyBaseLogger;
}): BillingModule {
  const { config, db, log } = deps;
  const { provider, engine, stripe } = deps.billingProvider;
  let cycleQueue: Promise<unknown> = Promise.resolve();
  const service = createBillingService({
    db,
    billing: provider,
    connectivity: deps.connectivity,
    notifier: deps.notifier,
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
    log,
  });
  provider.onEvent((event) => service.handleEvent(event));

  /** Stored status follows the pause dates: paused from the start date, active again after. */
  async function applyPauseTransitions(at: Date) {
    const today = businessDay(at);
    await db
      .update(subscriptions)
      .set({ status: 'paused', updatedAt: at })
      .where(
        and(
          eq(subscriptions.status, 'active'),
          lte(subscriptions.pauseStartsOn, today),
          gt(subscriptions.pauseResumesOn, today),
        ),
      );
    await db
      .update(subscriptions)
      .set({
        status: 'active',
        pauseStartsOn: null,
        pauseResumesOn: null,
        updatedAt: at,
      })
      .where(
        and(
          inArray(subscriptions.status, ['active', 'paused']),
          lte(subscriptions.pauseResumesOn, today),
        ),
      );
  }

  return {
    provider,
    service,
    engine,
    stripe,
    runCycle() {
      // One replay at a time: in this process (the job and a test clock move), and with
      // PostgreSQL across processes, so two replays never interleave their days.
      const run = () => deps.runAlone(advisoryLockKeys.billingCycle, runCycleAlone);
      const result = cycleQueue.then(run, run);
      cycleQueue = result.catch(() => undefined);
      return result;
    },
  };

  /** The cycle up to now, replaying the days since it last ran (see runCycle). */
  async function runCycleAlone() {
    await engine?.clock.refresh();
    const until = provider.now();
    const [reached] = await db
      .select()
      .from(appSettings)
      .where(eq(appSettings.key, cycleReachedKey));
    const from = typeof reached?.value === 'string' ? new Date(reached.value) : undefined;
    let renewed = 0;
    let simsChanged = 0;
    // Stripe keeps its own time: only the local engine's days are replayed.
    const steps = engine ? cycleSteps(from, until) : [until];
    let nextDue = from && steps.length > 1 ? await nextDueInstant(db, from) : null;
    for (const at of steps) {
      // A replayed day with nothing due is skipped; the last step always runs.
      if (at !== steps.at(-1) && (nextDue === null || nextDue > at)) continue;
      renewed += engine ? (await engine.runBillingCycle(at)).renewed : 0;
      if (stripe) await stripe.applyScheduledPauses();
      await applyPauseTransitions(at);
      simsChanged += (await service.reconcileSims(undefined, at)).changed;
      await service.sendDunningEndMails(at);
      await db
        .insert(appSettings)
        .values({ key: cycleReachedKey, value: at.toISOString() })
        .onConflictDoUpdate({
          target: appSettings.key,
          set: { value: at.toISOString() },
          // Never back: a slower process finishing an older step leaves the newer mark.
          setWhere: sql`${appSettings.value} #>> '{}' < ${at.toISOString()}`,
        });
      if (at !== steps.at(-1)) nextDue = await nextDueInstant(db, at);
    }
    return { renewed, simsChanged };
  }
}
