import { z } from 'zod';
import type { CameraStills } from '../modules/live-view/camera-stills.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every minute: cameras whose newest recorded clip is newer than their latest still get a still
 * from it (decision 157). Two workers at once make the same still at worst; the newer one stays.
 */
export function refreshCameraStillsJob(deps: {
  stills: Pick<CameraStills, 'refreshFromClips'>;
}): JobDefinition<object> {
  return {
    name: 'refresh-camera-stills',
    payload: z.object({}),
    cron: '* * * * *',
    async handle() {
      await deps.stills.refreshFromClips();
    },
  };
}
