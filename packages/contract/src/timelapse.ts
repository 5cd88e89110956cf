import { z } from 'zod';

/** One camera-day's timelapse (decision 097). */
export const timelapseDay = z.object({
  day: z.string().describe('The UK day it covers (YYYY-MM-DD)'),
  status: z
    .enum(['building', 'ready', 'failed', 'empty'])
    .describe('empty: the livestream recorded no scheduled clip that day'),
  clipCount: z.number().int().describe('Clips it was made from'),
  frameCount: z.number().int(),
  durationMs: z.number().int().nullable(),
  sizeBytes: z.number().int().nullable(),
  /** Signed, expiring address that plays it (byte ranges served); null unless ready. */
  videoUrl: z.string().nullable(),
  /** The same file served as a download under `downloadName`; null unless ready. */
  downloadUrl: z.string().nullable(),
  downloadName: z.string().nullable(),
  /** Why it could not be made (failed), in a sentence for the farmer. */
  problem: z.string().nullable(),
});
export type TimelapseDay = z.infer<typeof timelapseDay>;

export const timelapsesResponse = z.object({
  /** Only a camera with a livestream (scheduled clips) gets timelapses. */
  hasLivestream: z.boolean(),
  /** Days each timelapse is kept (TIMELAPSE_RETENTION_DAYS). */
  retentionDays: z.number().int(),
  /** Newest day first. */
  timelapses: z.array(timelapseDay),
});
export type TimelapsesResponse = z.infer<typeof timelapsesResponse>;
