import { z } from 'zod';
import { cameraAlertLimits } from './rules.ts';

const { silenceHours, dataAlertPercent, noClipHours } = cameraAlertLimits;

/** A camera's alert settings (decision 094); null turns an alert off. */
export const cameraAlertSettings = z.object({
  silenceHours: z
    .number()
    .int()
    .min(silenceHours.min)
    .max(silenceHours.max)
    .nullable()
    .describe('Hours with no data and no router report before an e-mail; null: off'),
  dataAlertPercent: z
    .number()
    .int()
    .min(dataAlertPercent.min)
    .max(dataAlertPercent.max)
    .nullable()
    .describe("Share of the plan's data e-mailed before it is all used; null: only at 100 %"),
  pauseDataAtAllowance: z
    .boolean()
    .describe("Bar the SIM's data once the plan's allowance is used (budget protection)"),
  noClipHours: z
    .number()
    .int()
    .min(noClipHours.min)
    .max(noClipHours.max)
    .nullable()
    .describe('Hours a scheduled livestream may deliver no clip before an e-mail; null: off'),
});
export type CameraAlertSettings = z.infer<typeof cameraAlertSettings>;

export const cameraAlertSettingsResponse = cameraAlertSettings.extend({
  canChange: z
    .boolean()
    .describe(
      "The person's role may change these settings and the camera's SIM is not switched off",
    ),
  unavailableReason: z
    .string()
    .nullable()
    .describe('Why a switched-off camera has no alerts, in words; null otherwise (decision 111)'),
  silence: z
    .object({
      since: z.string().describe('When the camera was last heard (ISO instant)'),
      hours: z.number().int().describe('Whole hours since then'),
    })
    .nullable()
    .describe("The camera's open silence (the same as plansV2's), for the details page's banner"),
});
export type CameraAlertSettingsResponse = z.infer<typeof cameraAlertSettingsResponse>;

/** A person's own choice to receive camera alert e-mails (the owner always does). */
export const myCameraAlertsBody = z.object({ cameraAlerts: z.boolean() });
export type MyCameraAlertsBody = z.infer<typeof myCameraAlertsBody>;
export const myCameraAlertsResponse = z.object({
  cameraAlerts: z.boolean(),
  isOwner: z
    .boolean()
    .describe('The owner always receives camera alerts; the switch is for members'),
});
export type MyCameraAlertsResponse = z.infer<typeof myCameraAlertsResponse>;

/** Development only: the local SIM platform's camera made silent from `since`. */
export const devSilenceBody = z.object({
  since: z.iso.datetime({ offset: true }).optional().describe('Default: now'),
});
