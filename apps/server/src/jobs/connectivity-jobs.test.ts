import { describe, expect, it, vi } from 'vitest';
import type { LocalSimPlatform } from '../providers/connectivity/local-sim-platform.ts';
import { recordLocalSimUsageJob } from './record-local-sim-usage.job.ts';
import { syncConnectivityJob } from './sync-connectivity.job.ts';

describe('connectivity jobs', () => {
  it('meters local usage every hour, then checks the usage', async () => {
    const calls: string[] = [];
    const platform = {
      recordUsage: vi.fn(async () => {
        calls.push('record');
        return { hoursRecorded: 1, simsMetered: 3 };
      }),
    } as unknown as LocalSimPlatform;
    const job = recordLocalSimUsageJob({
      platform,
      usage: { checkUsage: async () => void calls.push('checks') },
    });
    expect(job.cron).toBe('2 * * * *');
    await job.handle(job.payload.parse({}));
    expect(calls).toEqual(['record', 'checks']);
  });

  it('syncs from the platform every 15 minutes, then checks the usage', async () => {
    const calls: string[] = [];
    const job = syncConnectivityJob({
      usage: {
        sync: async () => {
          calls.push('sync');
          return { simsChecked: 0, simsChanged: 0, usageRowsWritten: 0, routersWritten: 0 };
        },
        checkUsage: async () => void calls.push('checks'),
      },
    });
    expect(job.cron).toBe('*/15 * * * *');
    await job.handle(job.payload.parse({}));
    expect(calls).toEqual(['sync', 'checks']);
  });

  it('checks nothing after a sync that failed (the next run repeats both)', async () => {
    const checkUsage = vi.fn(async () => undefined);
    const job = syncConnectivityJob({
      usage: { sync: () => Promise.reject(new Error('platform down')), checkUsage },
    });
    await expect(job.handle({})).rejects.toThrow('platform down');
    expect(checkUsage).not.toHaveBeenCalled();
  });
});
