/**
 * A usage sync and what follows it, in this order (decision 095): the SIM platform mirrored into
 * our tables (connectivity-sync.service.ts), then the usage e-mails, then the data caps on the
 * same figures. The sync job, the local platform's metering job and the development usage
 * route all run these steps.
 */
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import type { DataCaps } from '../budget/data-caps.service.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { syncFromPlatform, type SyncSummary } from './connectivity-sync.service.ts';
import { sendUsageAlerts } from './usage-alerts.service.ts';

export interface UsageSync {
  /** Mirrors SIM state, usage and router status from the platform. */
  sync(): Promise<SyncSummary>;
  /**
   * The checks on the usage just synced: the usage e-mails, then the data caps. An e-mail that
   * fails does not hold back the caps: both run, and the first failure is raised.
   */
  checkUsage(): Promise<void>;
  /** One sync and its checks, now. */
  syncAndCheck(): Promise<void>;
}

export function createUsageSync(deps: {
  db: Database;
  platform: ConnectivityPlatform;
  clock: Clock;
  notifier: Notifier;
  publicUrl: string;
  dataCaps: Pick<DataCaps, 'applyDataCaps'>;
}): UsageSync {
  const { db, platform, clock, notifier, publicUrl, dataCaps } = deps;
  const sync = () => syncFromPlatform({ db, platform, clock });
  async function checkUsage() {
    const failures: unknown[] = [];
    await sendUsageAlerts({ db, notifier, clock, publicUrl }).catch((error: unknown) =>
      failures.push(error),
    );
    await dataCaps.applyDataCaps().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  }
  return {
    sync,
    checkUsage,
    async syncAndCheck() {
      await sync();
      await checkUsage();
    },
  };
}
