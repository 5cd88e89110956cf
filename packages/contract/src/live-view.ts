import { z } from 'zod';
import { iccid } from './common.ts';

/** Live view of a camera (issue 27, decisions 151-159). */

/** How often a watching browser says it is still there, and when it counts as gone. */
export const liveViewTimings = {
  heartbeatSeconds: 5,
  /** No heartbeat for this long: the viewer is gone (the pull stops within 30 s of the last). */
  viewerGoneSeconds: 20,
  /** Watching this long without saying yes: "Still watching?" before more data is spent. */
  stillWatchingAfterSeconds: 600,
  /** Unanswered "Still watching?" for this long: the view stops by itself. */
  stillWatchingGraceSeconds: 60,
} as const;

/** A camera's latest still (decision 157), shown on its card and details page. */
export const cameraStill = z.object({
  url: z.string().describe('Signed, expiring address of the JPEG'),
  takenAt: z.string().describe('ISO time the picture was recorded'),
  source: z.enum(['clip', 'live', 'timelapse']),
});
export type CameraStill = z.infer<typeof cameraStill>;

export const liveViewParams = z.object({ iccid });
export const liveViewViewerParams = z.object({ iccid, viewerId: z.uuid() });

/** What the farmer can do about a refusal: a page of the portal to open. */
export const liveViewAction = z.object({
  label: z.string(),
  path: z.string().describe('A portal path, e.g. /subscription/<iccid>'),
});

/** The plan's streaming Hours and data this month, as the cost panel shows them. */
export const liveViewAllowance = z.object({
  /** The plan's Hours of live viewing a month; null when the plan has none. */
  hoursIncluded: z.number().nullable(),
  /** Seconds of live viewing pulled this month (every viewer of the camera shares one pull). */
  secondsUsed: z.number().int(),
  /** Seconds left of the plan's Hours this month; null when the plan has none. */
  secondsLeft: z.number().int().nullable(),
  /** The plan's monthly data allowance, in bytes; null with no plan. */
  dataAllowanceBytes: z.number().int().nullable(),
  /** Data used this month as the network reported it, plus live viewing since. */
  dataUsedBytes: z.number().int(),
  dataLeftBytes: z.number().int().nullable(),
});
export type LiveViewAllowance = z.infer<typeof liveViewAllowance>;

export const liveViewStatusResponse = z.object({
  iccid,
  canWatch: z.boolean(),
  /** Why not, in a sentence with what to do; null when the camera can be watched. */
  reason: z.string().nullable(),
  action: liveViewAction.nullable(),
  /** The owner's switch for this camera (decision 154). */
  isEnabled: z.boolean(),
  /** Whether this person may turn live view on or off (the owner, or staff in their portal). */
  canChangeSetting: z.boolean(),
  /** People watching this camera now. */
  viewersNow: z.number().int(),
  allowance: liveViewAllowance,
  /** The newest still from what the camera recorded; null when it recorded nothing yet. */
  still: cameraStill.nullable(),
});
export type LiveViewStatusResponse = z.infer<typeof liveViewStatusResponse>;

export const startLiveViewResponse = z.object({
  viewerId: z.uuid(),
  /** The HLS playlist's address; it carries its own secret (native HLS sends no bearer token). */
  playlistUrl: z.string(),
  heartbeatSeconds: z.number().int(),
  stillWatchingAfterSeconds: z.number().int(),
});
export type StartLiveViewResponse = z.infer<typeof startLiveViewResponse>;

export const liveViewStates = ['starting', 'live', 'ended', 'failed'] as const;
export type LiveViewState = (typeof liveViewStates)[number];

export const liveViewHeartbeatRequest = z.object({
  /** The viewer answered "Still watching?" with yes. */
  stillWatching: z.boolean().optional(),
});

export const liveViewHeartbeatResponse = z.object({
  state: z.enum(liveViewStates),
  /** Why it ended or failed (or why it stopped for this viewer), for the player. */
  reason: z.string().nullable(),
  viewersNow: z.number().int(),
  /** Bytes pulled from the camera since this viewer started watching. */
  bytesThisView: z.number().int(),
  /** Seconds since this viewer started watching. */
  secondsThisView: z.number().int(),
  /** "Still watching?" is due: the player asks, and the view stops unless they say yes. */
  isStillWatchingDue: z.boolean(),
  allowance: liveViewAllowance,
});
export type LiveViewHeartbeatResponse = z.infer<typeof liveViewHeartbeatResponse>;

export const liveViewSettingRequest = z.object({ isEnabled: z.boolean() });
export const liveViewSettingResponse = z.object({ isEnabled: z.boolean() });

/** The dashboard's live-view facts per camera the person may see (one request for every card). */
export const liveViewCamerasResponse = z.object({
  cameras: z.array(
    z.object({
      iccid,
      /** The plan includes hours of live view: the card offers Watch live. */
      hasLiveView: z.boolean(),
      /** The newest still from what the camera recorded; null when it recorded nothing yet. */
      still: cameraStill.nullable(),
    }),
  ),
});
export type LiveViewCamerasResponse = z.infer<typeof liveViewCamerasResponse>;
