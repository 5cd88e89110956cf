/**
 * Cameras and data usage (docs/requirements.md#data Camera, Plans response, SIM info, Router info, Usage; docs/requirements.md#api the
 * cameras and data-usage rows). Field names follow the spec, including its upper-case ones.
 */
import { z } from 'zod';
import { iccid } from './common.ts';
import {
  cameraFindStates,
  dayMs,
  maxNicknameLength,
  nicknameLength,
  normaliseNickname,
  planTiers,
} from './rules.ts';

/** docs/requirements.md#states SubStatus. No subscription at all (or an unpaid first one) is reported as 'canceled'. */
export const subStatuses = [
  'active',
  'paused',
  'past_due',
  'overdue',
  'canceled',
  'pause scheduled',
] as const;
export const subStatus = z.enum(subStatuses);
export type SubStatus = z.infer<typeof subStatus>;

/** docs/requirements.md#states SimStatus. */
export const simStatuses = ['active', 'paused', 'terminated'] as const;
export const simStatus = z.enum(simStatuses);
export type SimStatus = z.infer<typeof simStatus>;

/**
 * The card's headline state, which the status chip shows (docs/decisions/011): 'Barred' when the
 * provider disabled the SIM, 'terminated', 'Attention' (no active subscription on a live SIM),
 * otherwise the SubStatus.
 */
export const dashboardLabels = [
  'active',
  'paused',
  'pause scheduled',
  'past_due',
  'overdue',
  'canceled',
  'terminated',
  'Attention',
  'Barred',
] as const;
export const dashboardLabel = z.enum(dashboardLabels);
export type DashboardLabel = z.infer<typeof dashboardLabel>;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const stripeSubscription = z.object({
  id: z.string(),
  productName: z.string().nullable().describe('e.g. "Heavy Streaming"; null without a product'),
  interval: z.string().describe("'month', or 'year' for annual plans"),
  pause_collection: z
    .object({ resumes_at: z.number().int().describe('Epoch seconds of the resume date') })
    .nullable(),
  current_period_end: z.number().int().describe('Epoch seconds'),
});
export type StripeSubscription = z.infer<typeof stripeSubscription>;

export const subscriptionPause = z.object({
  start_date: isoDate,
  end_date: isoDate.nullable(),
});

export const cameraUsage = z.object({
  planAllowanceGB: z
    .number()
    .nullable()
    .describe("The plan's monthly allowance; null without a plan"),
  percentOfPlan: z
    .number()
    .nullable()
    .describe("This month's use as a share of the allowance, one decimal; may exceed 100"),
  forecastMonthEndGB: z
    .number()
    .nullable()
    .describe('Use by the end of the month at the current daily rate; null without a plan'),
});
export type CameraUsage = z.infer<typeof cameraUsage>;

/**
 * docs/requirements.md#states derived card states, decided by the server (docs/decisions/014). 'attention' is a
 * combination docs/requirements.md#states does not define: a running plan on a terminated SIM.
 */
export const cardStates = [
  'active',
  'paused',
  'pause-scheduled',
  'overdue',
  'terminated',
  'no-subscription',
  'attention',
] as const;
export const cardState = z.enum(cardStates);
export type CardState = z.infer<typeof cardState>;

/** Why an overdue camera's bills are unpaid (decision 113). */
export const unpaidCauses = ['no_card', 'card_expired', 'card_declined', 'not_collected'] as const;
export const unpaidCause = z.enum(unpaidCauses);
export type UnpaidCause = z.infer<typeof unpaidCause>;

export const unpaidBills = z.object({
  amountDue: z.number().int().describe('Every unpaid invoice of the camera together, minor units'),
  currency: z.string(),
  dueDate: isoDate.describe('The oldest unpaid invoice was due on this day'),
  cause: unpaidCause.describe(
    'no_card: nothing to charge; card_expired: the card a charge uses has expired; card_declined: it was tried and declined; not_collected: a card added since has not been charged yet',
  ),
  summary: z
    .string()
    .describe('Amount, one word and the date, e.g. "£20.00 unpaid since 1 May 2026"'),
  sentence: z
    .string()
    .describe(
      'The cause and what to do, e.g. "Your card ending 4242 expired in March 2025: update it to pay £20.00."',
    ),
});
export type UnpaidBills = z.infer<typeof unpaidBills>;

export const camera = z.object({
  SIM_ICCID: z.string(),
  nicknameInDatabase: z.string().nullable(),
  displayName: z
    .string()
    .describe('How every screen names the camera: its nickname, or "Camera 1071" (decision 170)'),
  SubStatus: subStatus,
  SimStatus: simStatus,
  labelDashboard: dashboardLabel,
  dataUsageGB: z.number().describe("This calendar month's use in GB (10^9 bytes), 3 decimals"),
  STRIPE_CUSTOMER_ID: z.string().nullable(),
  stripeSubscription: stripeSubscription.nullable(),
  tier: z
    .enum(planTiers)
    .nullable()
    .describe(
      "The plan's tier, from its product in the catalogue; null without a plan (decision 170)",
    ),
  statusData: z.object({
    subscriptionStatus: z.object({
      status: z.string().nullable().describe("The subscription's own status, e.g. past_due"),
      pause: subscriptionPause.nullable(),
    }),
  }),
  isBarred: z.boolean().describe('Disabled by the provider'),
  usage: cameraUsage,
  cardState: cardState.describe('Which card the dashboard shows (docs/decisions/014)'),
  canLivestream: z
    .boolean()
    .describe('The livestream set-up would accept this camera (the same rule as its eligibility)'),
  livestreamAction: z
    .enum(['set-up', 'manage'])
    .nullable()
    .describe(
      'What the card offers for livestreaming: set-up (eligible, none yet), manage (one is set up: its schedule, links and code), or null (cannot stream)',
    ),
  canPause: z.boolean().describe('The card offers Pause subscription'),
  pauseReason: z
    .string()
    .nullable()
    .describe('Why a running plan cannot be paused (e.g. annual plans), to show instead of Pause'),
  canCancelPause: z
    .boolean()
    .describe(
      'The card offers Cancel Scheduled Pause: a pause is scheduled and the role may change it',
    ),
  canSwitch: z
    .boolean()
    .describe('A plan switch would be accepted now (the same rule as the switch: decision 081)'),
  switchReason: z
    .string()
    .nullable()
    .describe('Why the plan cannot be switched now (e.g. a scheduled pause); null when it can'),
  canManagePlan: z
    .boolean()
    .describe(
      'The card links to Manage plan: a billing account, a role that may change plans, and a SIM not switched off (decision 111)',
    ),
  canPayNow: z
    .boolean()
    .describe('The card offers Pay now: the camera is overdue and the person may pay (the owner)'),
  canRenew: z
    .boolean()
    .describe(
      'The card offers Renew subscription: a billing account with no plan, and a role that may change cameras',
    ),
  terminatedOn: isoDate
    .nullable()
    .describe('The UK day the SIM was switched off (terminated); null while it is not'),
  silence: z
    .object({
      since: z.string().describe('When the camera was last heard (ISO instant)'),
      hours: z.number().int().describe('Whole hours since then'),
    })
    .nullable()
    .describe('The camera has sent no data and no router report for its alert time (decision 094)'),
  dataCap: z
    .object({
      stoppedAt: z.string().describe('When its data was paused at the allowance (ISO instant)'),
      canResume: z.boolean().describe('"Resume until the end of the month" would be accepted'),
      costNote: z.string().describe('What resuming costs, in a sentence for the farmer'),
    })
    .nullable()
    .describe(
      "The camera's data is paused this month: it used its plan's allowance (decision 095)",
    ),
  unpaid: unpaidBills
    .nullable()
    .describe("An overdue camera's unpaid bills, their cause and date; null unless overdue"),
  attention: z
    .string()
    .nullable()
    .describe(
      'Why the camera needs the farmer, in words (e.g. "Bill overdue", "No plan: renew to keep it streaming"); null when nothing is wrong (decision 140)',
    ),
  findStates: z
    .array(z.enum(cameraFindStates))
    .describe("The dashboard's filters this camera is in (decision 140)"),
  stateOrder: z
    .number()
    .int()
    .describe(
      'Lower is more urgent: the dashboard lists cameras needing attention first (decision 140)',
    ),
  isLivestreaming: z.boolean().describe('Its livestream schedule is switched on'),
});
export type Camera = z.infer<typeof camera>;

export const plansResponse = z.object({
  overallSummary: z.object({
    overallPercentageLeft: z
      .number()
      .describe('100 − this month’s use / allowance of the counted plans × 100, 0..100, 1 decimal'),
    totalUsageGB: z.number(),
    totalAllowanceGB: z.number().describe('0 when no plan is in force this month'),
    countedPlans: z.number().int(),
    notCounted: z
      .object({
        paused: z.number().int().describe('Cameras whose plan is paused this month'),
        withoutPlan: z
          .number()
          .int()
          .describe('Live cameras with no plan (or none with a data allowance) in use'),
        switchedOff: z.number().int().describe('Cameras whose SIM is switched off'),
      })
      .describe('The cameras the combined figures leave out, and why (decision 143)'),
  }),
  cameras: z.array(camera),
  supportEmail: z.string().describe('Where the cards send a farmer who needs help'),
});
export type PlansResponse = z.infer<typeof plansResponse>;

export const iccidParams = z.object({ iccid });

export const simInfo = z.object({
  connectionDate: z.string().nullable().describe('ISO time the SIM was activated'),
  isActive: z.boolean(),
  isBarred: z.boolean(),
  physicalId: z.string().describe('The SIM number (ICCID)'),
  terminateDate: z.string().nullable(),
  state: simStatus.describe('active, paused or terminated (switched off)'),
  statusWords: z
    .object({
      currentlyActive: z.string().describe('"Yes", or "No: …" with why'),
      disabledByProvider: z.string().describe('"Yes: …" only when the provider barred the SIM'),
      note: z
        .string()
        .nullable()
        .describe('What happened to a switched-off SIM and what to do; null otherwise'),
    })
    .describe("The card's answers in words that agree with each other (decision 111)"),
});
export type SimInfo = z.infer<typeof simInfo>;

export const simInfoResponse = z.object({
  simInfo,
  nickname: z.string().nullable(),
});
export type SimInfoResponse = z.infer<typeof simInfoResponse>;

export const routerInfo = z.object({
  'Cameras Network Name': z.string(),
  'Network Provider': z.string(),
  'Signal Strength': z.string(),
  'Signal Strength (dBm)': z.number().int(),
});
export type RouterInfo = z.infer<typeof routerInfo>;

export const routerInfoResponse = z.object({
  routerInfo: routerInfo.nullable().describe('null while the SIM is not active or never reported'),
  updatedAt: z.string().nullable(),
  unavailableReason: z
    .string()
    .nullable()
    .describe('Why the router cannot be seen (SIM barred, paused or terminated); null otherwise'),
});
export type RouterInfoResponse = z.infer<typeof routerInfoResponse>;

/** A real calendar day, YYYY-MM-DD. */
export const calendarDay = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Enter the date as YYYY-MM-DD, e.g. 2026-04-01.')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'That date does not exist.');

/** Longest range one data-usage call may ask for. */
export const maxUsageRangeDays = 400;

/** docs/requirements.md#api: the end date is spelled endDate in one place and endData in another; both work. */
export const dataUsageQuery = z
  .object({
    startDate: calendarDay.optional(),
    endDate: calendarDay.optional(),
    endData: calendarDay.optional(),
  })
  .transform((query, context) => {
    const end = query.endDate ?? query.endData;
    if (!query.startDate) {
      context.addIssue({ code: 'custom', message: 'Choose a start date.', path: ['startDate'] });
      return z.NEVER;
    }
    if (!end) {
      context.addIssue({ code: 'custom', message: 'Choose an end date.', path: ['endDate'] });
      return z.NEVER;
    }
    if (end < query.startDate) {
      context.addIssue({
        code: 'custom',
        message: 'The end date must not be before the start date.',
        path: ['endDate'],
      });
      return z.NEVER;
    }
    const days = (Date.parse(end) - Date.parse(query.startDate)) / dayMs + 1;
    if (days > maxUsageRangeDays) {
      context.addIssue({
        code: 'custom',
        message: `The range may cover at most ${maxUsageRangeDays} days.`,
        path: ['endDate'],
      });
      return z.NEVER;
    }
    return { startDate: query.startDate, endDate: end };
  });

export const dataUsageResponse = z.object({
  dailyGB: z
    .record(z.string(), z.number())
    .describe('Every day of the range up to today (business time), in order; GB with 3 decimals'),
  todaySoFar: isoDate
    .nullable()
    .describe(
      "The range's last day when it is today: its figure is what was used so far and grows until midnight (decision 143); null otherwise",
    ),
});
export type DataUsageResponse = z.infer<typeof dataUsageResponse>;

export const updateNicknameBody = z.object({
  simIccid: iccid,
  nickname: z
    .string()
    .transform(normaliseNickname)
    .pipe(
      z
        .string()
        .min(1, 'Enter a camera name')
        .refine(
          (value) => nicknameLength(value) <= maxNicknameLength,
          `A camera name has at most ${maxNicknameLength} characters`,
        )
        // eslint-disable-next-line no-control-regex
        .refine((value) => !/[\u0000-\u001f\u007f-\u009f]/.test(value), {
          message: 'A camera name cannot contain control characters',
        }),
    ),
});
export type UpdateNicknameBody = z.input<typeof updateNicknameBody>;

export const updateNicknameResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  nickname: z.string(),
});
export type UpdateNicknameResponse = z.infer<typeof updateNicknameResponse>;
