/**
 * How the dashboard shows a camera of the plans list (docs/requirements.md#data, #states): the status chip's tone and
 * text, the plan's name and tier, the billing interval, the card's messages. Display only: the
 * card state and which actions a card offers (livestream, pause) come from the server
 * (docs/decisions/014).
 */
import type { CardState, DashboardLabel } from '@farmcam/contract';
import type { ChipTone } from '../../components/ui/chip.tsx';
import { cameraNameOf } from '../../lib/camera-name.ts';

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
 * docs/requirements.md#data Plan tier: light, standard or heavy from the product name; for other names the word
 * 'streaming' is stripped and 'Unknown' is used if nothing remains.
 */
export function planTierOf(productName: string): string {
  const name = productName.toLowerCase();
  for (const tier of ['light', 'standard', 'heavy'] as const) {
    if (name.includes(tier)) return tier;
  }
  const rest = productName
    .replace(/streaming/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
  return rest === '' ? 'Unknown' : rest;
}

/** The card's plan line: the tier with the suffix 'Streaming', or 'No Plan' without a product. */
export function planNameOf(productName: string | null | undefined): string {
  if (!productName) return 'No Plan';
  const tier = planTierOf(productName);
  return `${tier.charAt(0).toUpperCase()}${tier.slice(1)} Streaming`;
}

/** docs/requirements.md#screens: Billed Monthly for 'month', Billed Annually otherwise. */
export function billingIntervalTextOf(interval: string): string {
  return interval === 'month' ? 'Billed Monthly' : 'Billed Annually';
}

/** Cards of a plan that no longer bills say nothing about billing (docs/decisions/014). */
export const showsBillingInterval = (state: CardState) =>
  state !== 'terminated' && state !== 'no-subscription' && state !== 'attention';

/** A card's camera by its display name (lib/camera-name.ts: the nickname, or "Camera 1071"). */
export const cardCameraName = (camera: { nicknameInDatabase: string | null; SIM_ICCID: string }) =>
  cameraNameOf(camera.nicknameInDatabase, camera.SIM_ICCID);

// Formatters are made once: building an Intl formatter per call is the costliest part of a card.
const gbFormats = new Map<number, Intl.NumberFormat>();

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
  pausedRestart:
    'A paused plan can be restarted at the start of any month: get in touch before the 25th.',
  barred: 'The network provider has disabled this SIM. Please contact support.',
  attention:
    "This camera's SIM has been switched off by the network, but its plan is still running, so it cannot stream. Please contact support and we will put it right.",
} as const;
