/**
 * Livestreaming (docs/requirements.md#livestream-setup, #data Livestream camera / setup data / embed code, docs/requirements.md#api the
 * livestreaming rows, docs/requirements.md#limits RTSP constants). Request field names follow the spec's snake_case calls.
 */
import { z } from 'zod';
import { emailAddress, iccid } from './common.ts';
import {
  immediateDurations,
  livestreamDurations,
  livestreamQualities,
  livestreamRtspPort,
  rtspPaths,
  scheduleDays,
} from './rules.ts';

// The livestream's constants live in the shared rules, where the web reads them too (decision 170).
export {
  immediateDurations,
  livestreamDurations,
  livestreamQualities,
  livestreamRtspPort,
  previewDurationSeconds,
  rtspPathByQuality,
  rtspPaths,
  scheduleDays,
  unusedLivestreamDays,
  type LivestreamDuration,
  type LivestreamQuality,
  type RtspPath,
  type ScheduleDay,
} from './rules.ts';

const durationOf = <T extends readonly number[]>(values: T, message: string) =>
  z
    .number()
    .int()
    .refine((value): value is T[number] => values.includes(value), message);

// ── The cameras offered for livestreaming ─────────────────────────────────────────────────────

export const livestreamViewsDay = z.object({
  day: z.string().describe('YYYY-MM-DD, UK date'),
  views: z.number().int(),
});

export const livestreamSummary = z.object({
  publicId: z.string().describe('The unguessable id in the embed code'),
  embedCode: z.string().describe('HTML to paste into a website'),
  embedUrl: z.string().describe('The embed page the code frames'),
  quality: z.enum(livestreamQualities),
  durationSeconds: z.number().int(),
  includeAudio: z.boolean(),
  scheduleHours: z.array(z.number().int()),
  scheduleDays: z.array(z.enum(scheduleDays)),
  schedule: z.string().describe('The schedule as text, e.g. hours=9,10;days=MONDAY'),
  isActive: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe('Why the schedule was switched off by the system, if it was'),
  isConfigured: z.boolean().describe('False until the schedule has been saved once'),
  latestClipAt: z.string().nullable(),
  nextRecordingAt: z.string().nullable().describe('The next scheduled recording, if any'),
  recordingFailures: z
    .number()
    .int()
    .describe('Recordings that failed in the last 7 days (after every retry)'),
  lastFailure: z.object({ at: z.string(), error: z.string() }).nullable(),
  lastSeenOnSiteAt: z.string().nullable(),
  switchOffAt: z
    .string()
    .nullable()
    .describe('When the schedule will be switched off unless the code is seen on a website'),
  viewsByDay: z.array(livestreamViewsDay).describe('The last 14 days, oldest first'),
});
export type LivestreamSummary = z.infer<typeof livestreamSummary>;

/** docs/requirements.md#data Livestream camera, with what the setup screens need besides. */
export const livestreamCamera = z.object({
  SIM_ICCID: z.string(),
  nicknameInDatabase: z.string().nullable(),
  SubStatus: z.string(),
  stripeSubscription: z.object({ productName: z.string() }),
  dataAllowanceGb: z.number().describe("The plan's monthly data allowance"),
  livestream: livestreamSummary.nullable(),
});
export type LivestreamCamera = z.infer<typeof livestreamCamera>;

export const livestreamCamerasResponse = z.object({
  cameras: z.array(livestreamCamera),
  supportEmail: z.string().describe('Where to ask for help with livestreaming'),
});
export type LivestreamCamerasResponse = z.infer<typeof livestreamCamerasResponse>;

// ── Calls (docs/requirements.md#api) ────────────────────────────────────────────────────────────────────────────

export const setupCameraBody = z.object({
  sim_number: iccid,
  ports: z
    .array(z.number().int())
    .min(1, 'Name the camera port to open: the RTSP port 554.')
    .max(4)
    .refine(
      (ports) => ports.every((port) => port === livestreamRtspPort),
      'Only the camera’s RTSP port 554 can be opened.',
    ),
});
export type SetupCameraBody = z.input<typeof setupCameraBody>;

export const setupCameraResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({ camera_id: z.string(), public_id: z.string() }),
});
export type SetupCameraResponse = z.infer<typeof setupCameraResponse>;

export const configureRtspBody = z.object({
  camera_id: iccid,
  rtsp_port: z.literal(livestreamRtspPort, 'rtsp_port must be 554'),
  rtsp_path: z.enum(rtspPaths, 'rtsp_path must be /12 (SD) or /11 (HD)'),
  duration: durationOf(livestreamDurations, 'duration must be 15, 30 or 60 seconds'),
  include_audio: z.boolean(),
  is_active: z.boolean(),
  schedule: z
    .string()
    .max(400, 'schedule is too long')
    .describe(
      'Hours (0-23) and days, e.g. "hours=9,10,11;days=MONDAY,TUESDAY" (ranges such as 9-17 and MON-FRI are accepted; either list may be empty)',
    ),
});
export type ConfigureRtspBody = z.input<typeof configureRtspBody>;

export const configureRtspResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  data: livestreamSummary,
});
export type ConfigureRtspResponse = z.infer<typeof configureRtspResponse>;

export const rtspNowBody = z.object({
  camera_id: iccid,
  rtsp_port: z.literal(livestreamRtspPort, 'rtsp_port must be 554'),
  rtsp_path: z.enum(rtspPaths, 'rtsp_path must be /12 (SD) or /11 (HD)'),
  duration: durationOf(immediateDurations, 'duration must be 5, 15, 30 or 60 seconds'),
  include_audio: z.boolean(),
});
export type RtspNowBody = z.input<typeof rtspNowBody>;

export const clipStatuses = ['recording', 'ready', 'failed'] as const;
export type ClipStatus = (typeof clipStatuses)[number];

export const rtspNowResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({
    s3_key: z.string().describe('Where the clip is stored once recorded'),
    clip_id: z.string(),
    status: z.enum(clipStatuses),
  }),
});
export type RtspNowResponse = z.infer<typeof rtspNowResponse>;

export const clipStatusQuery = z.object({ camera_id: iccid, s3_key: z.string().min(1).max(300) });
export const clipStatusResponse = z.object({
  status: z.enum(clipStatuses),
  url: z.string().nullable().describe('A playable, expiring address once the clip is ready'),
  error: z.string().nullable(),
  recordedAt: z.string(),
});
export type ClipStatusResponse = z.infer<typeof clipStatusResponse>;

export const shareCodeBody = z.object({
  camera_id: iccid,
  email_address: emailAddress,
  html_code: z
    .string()
    .max(4000)
    .describe("Ignored: the e-mail carries the server's own embed code for the camera"),
});
export type ShareCodeBody = z.input<typeof shareCodeBody>;

export const shareCodeResponse = z.object({ success: z.literal(true), message: z.string() });
export type ShareCodeResponse = z.infer<typeof shareCodeResponse>;

export const livestreamActiveBody = z.object({ camera_id: iccid, is_active: z.boolean() });
export type LivestreamActiveBody = z.infer<typeof livestreamActiveBody>;
export const livestreamActiveResponse = configureRtspResponse;

/** The public call the embed page makes: its plain-text answer is the video's source. */
export const livestreamUrlQuery = z.object({
  camera_id: z
    .string()
    .regex(/^l[sk]_[A-Za-z0-9_-]{16,40}$/, 'camera_id: not a livestream id')
    .describe(
      "The public id from the embed code, or a public link's token (lk_...); never the ICCID",
    ),
  site: z
    .string()
    .max(253)
    .optional()
    .describe('Sent by older players; ignored: the site comes from the page-load token only'),
  load: z
    .string()
    .max(400)
    .optional()
    .describe(
      'The embed page’s page-load token (or its renewal from X-Page-Load): proves the page load and the website that framed it; a public link (lk_) plays only with one',
    ),
  refresh: z.enum(['1']).optional().describe('Set by the player when it checks for a newer clip'),
});

export const showcaseResponse = z.object({
  url: z.string().nullable().describe('A recent clip of the demo camera'),
  recordedAt: z.string().nullable(),
  isRecording: z.boolean().describe('A fresh demo clip is being recorded (look again soon)'),
});
export type ShowcaseResponse = z.infer<typeof showcaseResponse>;

/** Whether the local demo camera (the stand-in for every camera in local mode) can run here. */
export const demoCameraResponse = z.object({
  problem: z
    .string()
    .nullable()
    .describe(
      'Why the demo camera cannot run on this server, with what to install; null if it can',
    ),
  packages: z.array(z.string()).describe('The Debian packages to install'),
});
export type DemoCameraResponse = z.infer<typeof demoCameraResponse>;
