/**
 * How the dashboard shows a camera of the plans list (docs/requirements.md#data, #states): the status chip's tone and
 * text, the plan's name and tier, the billing interval, the card's messages. Display only: the
 * card state and which actions a card offers (livestream, pause) come from the server
 * (docs/decisions/014).
 */
import type { CardState, DashboardLabel } from '@farmcam/contract';
import { beforePauseCutOff, type PlanTier } from '@farmcam/contract/rules';
import type { ChipTone } from '../../components/ui/chip.tsx';

export type { CardState };

/**
 * docs/requirements.md#states chip colours: active green; Attention, Barred, canceled, overdue, past_due red;
 * paused and pause scheduled orange; terminated dark grey; anything else grey.
 */
export function chipToneOf(label: DashboardLabel | string): ChipTone {
  switch (label) {
    case 'active':
      return 'success';
    case 'Attention':
    case 'Barred':
    case 'canceled':
    case 'overdue':
    case 'past_due':
      return 'danger';
    case 'paused':
    case 'pause scheduled':
      return 'warning';
    case 'terminated':
      return 'inactive';
    default:
      return 'neutral';
  }
}

const chipTexts: Record<string, string> = {
  active: 'Active',
  paused: 'Paused',
  'pause scheduled': 'Pause scheduled',
  past_due: 'Past due',
  overdue: 'Overdue',
  canceled: 'Cancelled',
  terminated: 'Terminated',
  Attention: 'Attention',
  Barred: 'Barred',
};

/** What the chip says for a labelDashboard value. */
export function chipTextOf(label: DashboardLabel | string): string {
  const known = chipTexts[label];
  if (known) return known;
  const words = label.replaceAll('_', ' ').trim();
  return words === '' ? 'Unknown' : words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The card's plan line: the tier the server sends (the product's, decision 170) with the suffix
 * 'Streaming', or 'No Plan' without a plan.
 */
export function planNameOf(tier: PlanTier | null): string {
  if (!tier) return 'No Plan';
  return `${tier.charAt(0).toUpperCase()}${tier.slice(1)} Streaming`;
}

/** docs/requirements.md#screens: Billed Monthly for 'month', Billed Annually otherwise. */
export function billingIntervalTextOf(interval: string): string {
  return interval === 'month' ? 'Billed Monthly' : 'Billed Annually';
}

/** Cards of a plan that no longer bills say nothing about billing (docs/decisions/014). */
export const showsBillingInterval = (state: CardState) =>
  state !== 'terminated' && state !== 'no-subscription' && state !== 'attention';

// Formatters are made once: building an Intl formatter per call is the costliest part of a card.
const gbFormats = new Map<number, Intl.NumberFormat>();

/**
 * One rounding rule for every figure of a view (decision 143): data in GB with at most two
 * decimals ("3.05 GB", "145 GB"), shares of a plan with exactly one ("61.0%", as the spec gives
 * the combined plan's).
 */
const percentFormat = new Intl.NumberFormat('en-GB', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

/** A share with one decimal, "38.7%". */
export const formatPercent = (percent: number): string => `${percentFormat.format(percent)}%`;

/** GB with at most two (or the given number of) decimals, en-GB. */
export function formatGb(gigabytes: number, maximumFractionDigits = 2): string {
  let format = gbFormats.get(maximumFractionDigits);
  if (!format) {
    format = new Intl.NumberFormat('en-GB', { maximumFractionDigits });
    gbFormats.set(maximumFractionDigits, format);
  }
  return `${format.format(gigabytes)} GB`;
}

export const cardTexts = {
  overdue: 'Overdue payments on account. Please pay now or your Streaming Plan will be terminated.',
  noSubscription:
    'No active subscription found, please renew immediately or your Streaming Plan will be terminated.',
  terminated: 'Streaming plan cancelled and SIM deactivated.',
  // The cut-off is the pause rules' own (decision 170).
  pausedRestart: `A paused plan can be restarted at the start of any month: get in touch ${beforePauseCutOff}.`,
  barred: 'The network provider has disabled this SIM. Please contact support.',
  attention:
    "This camera's SIM has been switched off by the network, but its plan is still running, so it cannot stream. Please contact support and we will put it right.",
} as const;

const countOf = (count: number, one: string, many: string) =>
  `${count} ${count === 1 ? one : many}`;

/**
 * Which cameras the combined figures count and which they leave out, from the server's tally
 * (decision 143): "Counts 7 cameras with a paid plan; not counted: 1 paused, 1 without a plan,
 * 1 switched off."
 */
export function countedCamerasSentence(summary: {
  countedPlans: number;
  notCounted: { paused: number; withoutPlan: number; switchedOff: number };
}): string {
  const { paused, withoutPlan, switchedOff } = summary.notCounted;
  const left = [
    paused > 0 ? `${paused} paused` : null,
    withoutPlan > 0 ? `${withoutPlan} without a plan` : null,
    switchedOff > 0 ? `${switchedOff} switched off` : null,
  ].filter((part) => part !== null);
  const counts = `Counts ${countOf(summary.countedPlans, 'camera', 'cameras')} with a paid plan`;
  return left.length === 0 ? `${counts}.` : `${counts}; not counted: ${left.join(', ')}.`;
}
