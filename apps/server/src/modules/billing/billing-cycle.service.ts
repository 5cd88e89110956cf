/**
 * The billing cycle the billing job runs (decision 025): renewals and dunning (local engine),
 * scheduled pauses (Stripe), pause transitions, SIM state, the e-mails at the end of dunning.
 * Time since the last run (a test clock jump, a server that was down) is replayed day by day, so
 * each renewal, retry, pause and resume happens on its own date.
 */
import { advisoryLockKeys, type Database, type DatabaseHandle } from '../../db/client.ts';
import type { BillingProvider } from '@farmcam/billing';
import type { LocalBillingEngine } from '@farmcam/billing-engine';
import type { StripeBilling } from '../../providers/billing/stripe/stripe-billing.ts';
import {
  applyPauseTransitions,
  cycleReachedAt,
  nextDueInstant,
  recordCycleReached,
} from './billing-cycle.repository.ts';
import { cycleSteps } from './billing-cycle-steps.ts';
import { businessDay } from './pause-rules.ts';
import type { SimLifecycle } from './sim-lifecycle.service.ts';

export interface BillingCycle {
  /** The cycle up to now, replaying the days since it last ran. */
  runCycle(): Promise<{ renewed: number; simsChanged: number }>;
}

export function createBillingCycle(deps: {
  db: Database;
  provider: BillingProvider;
  /** Set with BILLING=local: its renewals and dunning run, and its days are replayed. */
  engine: LocalBillingEngine | undefined;
  /** Set with BILLING=stripe: the pauses Stripe was asked to schedule are applied. */
  stripe: StripeBilling | undefined;
  simLifecycle: Pick<SimLifecycle, 'reconcileSims' | 'sendDunningEndMails'>;
  /** The database's advisory lock (DatabaseHandle.withAdvisoryLock): one cycle at a time. */
  runAlone: DatabaseHandle['withAdvisoryLock'];
}): BillingCycle {
  const { db, provider, engine, stripe, simLifecycle } = deps;
  let cycleQueue: Promise<unknown> = Promise.resolve();

  /** The cycle up to now, replaying the days since it last ran (see runCycle). */
  async function runCycleAlone() {
    await engine?.clock.refresh();
    const until = provider.now();
    const from = await cycleReachedAt(db);
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
      await applyPauseTransitions(db, businessDay(at), at);
      simsChanged += (await simLifecycle.reconcileSims(undefined, at)).changed;
      await simLifecycle.sendDunningEndMails(at);
      await recordCycleReached(db, at);
      if (at !== steps.at(-1)) nextDue = await nextDueInstant(db, at);
    }
    return { renewed, simsChanged };
  }

  return {
    runCycle() {
      // One replay at a time: in this process (the job and a test clock move), and with
      // PostgreSQL across processes, so two replays never interleave their days.
      const run = () => deps.runAlone(advisoryLockKeys.billingCycle, runCycleAlone);
      const result = cycleQueue.then(run, run);
      cycleQueue = result.catch(() => undefined);
      return result;
    },
  };
}
