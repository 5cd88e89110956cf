import { describe, expect, it, vi } from 'vitest';
import type { LocalSimPlatform } from '../providers/connectivity/local-sim-platform.ts';
import { recordLocalSimUsageJob } from './record-local-sim-usage.job.ts';
import { syncConnectivityJob } from './sync-connectivity.job.ts';

describe('connectivity jobs', () => {
  it('meters local usage every hour, then sends usage alerts', async () => {
    const calls: string[] = [];
    const platform = {
      recordUsage: vi.fn(async () => {
        calls.push('record');
        return { hoursRecorded: 1, simsMetered: 3 };
      }),
    } as unknown as LocalSimPlatform;
    const job = recordLocalSimUsageJob({
      platform,
      sendUsageAlerts: async () => calls.push('alerts'),
    });
    expect(job.cron).toBe('2 * * * *');
    await job.handle(job.payload.parse({}));
    expect(calls).toEqual(['record', 'alerts']);
  });

  it('syncs from the platform every 15 minutes, then sends usage alerts', async () => {
    const calls: string[] = [];
    const job = syncConnectivityJob({
      syncFromPlatform: async () => calls.push('sync'),
      sendUsageAlerts: async () => calls.push('alerts'),
    });
    expect(job.cron).toBe('*/15 * * * *');
    await job.handle(job.payload.parse({}));
    expect(calls).toEqual(['sync', 'alerts']);
  });

  it('does not send alerts from a sync that failed (the next run repeats both)', async () => {
    const sendUsageAlerts = vi.fn(async () => undefined);
    const job = syncConnectivityJob({
      syncFromPlatform: () => Promise.reject(new Error('platform down')),
      sendUsageAlerts,
    });
    await expect(job.handle({})).rejects.toThrow('platform down');
    expect(sendUsageAlerts).not.toHaveBeenCalled();
  });
});
