import { z } from 'zod';
import type { JobDefinition } from './job-runner.ts';

/**
 * Every 5 minutes: opens a silence (and e-mails once) for each watched camera not heard for its
 * chosen hours, and ends it (with the back-again e-mail) once heard again
 * (modules/camera-watch/silence-detection.service.ts, decision 094). Idempotent and safe in two
 * processes: silences and their e-mails are claimed in the database.
 */
export function detectSilentCamerasJob(deps: {
  detectSilentCameras: () => Promise<unknown>;
}): JobDefinition<object> {
  return {
    name: 'detect-silent-cameras',
    payload: z.object({}),
    cron: '*/5 * * * *',
    async handle() {
      await deps.detectSilentCameras();
    },
  };
}
