/**
 * Development only (the local SIM platform; app.ts registers its route outside production): a
 * camera uses more data today, then the usage sync, usage alerts and data caps run at once
 * instead of waiting for the jobs (decision 095).
 */
import type { LocalSimPlatform } from '../../providers/connectivity/local-sim-platform.ts';

export function createDevBudget(deps: {
  platform: Pick<LocalSimPlatform, 'recordCameraTraffic'>;
  /** The usage sync and its checks (modules/usage, which builds on budget: passed in). */
  usageSync: { syncAndCheck(): Promise<void> };
}) {
  return {
    async addUsage(iccid: string, gigabytes: number): Promise<void> {
      // The local platform meters into its daily usage (UTC days); its sync reads the same rows.
      await deps.platform.recordCameraTraffic(iccid, Math.round(gigabytes * 1e9));
      await deps.usageSync.syncAndCheck();
    },
  };
}

export type DevBudget = ReturnType<typeof createDevBudget>;
