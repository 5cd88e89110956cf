/**
 * Development only (the local SIM platform; app.ts registers its routes outside production):
 * a camera goes silent or is heard again without hardware, and the watch (the connectivity sync,
 * then the silence detection) runs at once instead of waiting for the jobs (decision 094).
 */
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { LocalSimPlatform } from '../../providers/connectivity/local-sim-platform.ts';
import type { UsageSync } from '../usage/usage-sync.service.ts';
import { cameraWatchRepository } from './camera-watch.repository.ts';
import type { SilenceDetection } from './silence-detection.service.ts';

export function createDevSilence(deps: {
  db: Database;
  platform: Pick<LocalSimPlatform, 'setSilentSince'>;
  clock: Clock;
  usageSync: Pick<UsageSync, 'sync'>;
  silenceDetection: Pick<SilenceDetection, 'detectSilentCameras'>;
}) {
  return {
    /** The camera goes silent from `since` (default now). */
    async silence(iccid: string, since: Date = deps.clock.now()): Promise<void> {
      await deps.platform.setSilentSince(iccid, since);
      // As if it had gone silent then: what was heard since is forgotten.
      await cameraWatchRepository.rewindHeartbeat(deps.db, iccid, since);
    },

    /** The camera is live again. */
    hear: (iccid: string) => deps.platform.setSilentSince(iccid, null),

    async runWatch(): Promise<void> {
      await deps.usageSync.sync();
      await deps.silenceDetection.detectSilentCameras();
    },
  };
}

export type DevSilence = ReturnType<typeof createDevSilence>;
