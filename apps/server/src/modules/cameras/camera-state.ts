/**
 * How a camera's subscription and SIM become the states of docs/requirements.md#states, and the usage figures of
 * its card. Pure functions of stored values and business time; rules in docs/decisions/011.
 */
import type { CardState, DashboardLabel, SimStatus, SubStatus } from '@farmcam/contract';
import { dayMs, formatDay, type CameraFindState } from '@farmcam/contract/rules';
import type { SimState, SubscriptionStatus } from '../../db/schema.ts';
import { businessDay } from '../../lib/business-calendar.ts';
import { pauseStateOn, type PauseFields } from '@farmcam/billing/pause-policy';

export interface SubscriptionFacts extends PauseFields {
  status: SubscriptionStatus;
}

/**
 * SubStatus of the current subscription on `today` (the UK day, `businessDay`): the pause rule
 * (`pauseStateOn`, docs/decisions/081) says 'pause scheduled' or 'paused', even before the job
 * has moved the stored status; no subscription, or one never paid for, has no plan: 'canceled'.
 */
export function deriveSubStatus(subscription: SubscriptionFacts | null, today: string): SubStatus {
  if (!subscription) return 'canceled';
  switch (subscription.status) {
    case 'active':
    case 'paused': {
      const pause = pauseStateOn(subscription, today);
      if (pause === 'scheduled') return 'pause scheduled';
      return pause === 'paused' ? 'paused' : 'active';
    }
    case 'past_due':
      return 'past_due';
    case 'overdue':
      return 'overdue';
    case 'canceled':
    case 'incomplete':
      return 'canceled';
  }
}

/** docs/requirements.md#states SimStatus; a SIM still in stock is not a camera yet and is never listed. */
export function deriveSimStatus(state: SimState): SimStatus {
  return state === 'stock' ? 'paused' : state;
}

/**
 * docs/requirements.md#states derived card states. A terminated SIM with no plan is Terminated; a terminated SIM whose
 * plan still runs (the provider ended the SIM first) is a combination docs/requirements.md#states does not define:
 * 'attention', a card that asks the farmer to contact support (docs/decisions/014).
 */
export function deriveCardState(subStatus: SubStatus, simStatus: SimStatus): CardState {
  if (simStatus === 'terminated') return subStatus === 'canceled' ? 'terminated' : 'attention';
  switch (subStatus) {
    case 'active':
      return 'active';
    case 'paused':
      return 'paused';
    case 'pause scheduled':
      return 'pause-scheduled';
    case 'past_due':
    case 'overdue':
      return 'overdue';
    case 'canceled':
      return 'no-subscription';
  }
}

/**
 * labelDashboard, the card's headline shown in its status chip: 'terminated' for a terminated
 * SIM without a plan, 'Barred' when the provider disabled the SIM, 'Attention' for a live SIM
 * with no active subscription or a terminated SIM whose plan still runs, otherwise the SubStatus.
 */
export function deriveDashboardLabel(
  subStatus: SubStatus,
  simStatus: SimStatus,
  isBarred: boolean,
): DashboardLabel {
  const cardState = deriveCardState(subStatus, simStatus);
  if (cardState === 'terminated') return 'terminated';
  if (cardState === 'attention') return 'Attention';
  if (isBarred) return 'Barred';
  if (cardState === 'no-subscription') return 'Attention';
  return subStatus;
}

/** Plans whose allowance is in force this month count towards the combined plan. */
export function isCountedPlan(subStatus: SubStatus, simStatus: SimStatus): boolean {
  return (
    simStatus !== 'terminated' &&
    (subStatus === 'active' ||
      subStatus === 'pause scheduled' ||
      subStatus === 'past_due' ||
      subStatus === 'overdue')
  );
}

export const bytesPerGb = 1e9;

/** "12.5 GB": an amount of data as the e-mails and sentences write it. */
export const formatGb = (gigabytes: number) =>
  `${gigabytes.toLocaleString('en-GB', { maximumFractionDigits: 1 })} GB`;

export const roundTo = (value: number, decimals: number): number => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};

/**
 * overallPercentageLeft: 100 − (this month's use of the counted plans ÷ their allowances) × 100,
 * clamped to 0..100, one decimal. With no counted plan there is nothing used: 100.
 */
export function overallPercentageLeft(usedBytes: number, allowanceBytes: number): number {
  if (allowanceBytes <= 0) return 100;
  const left = 100 - (usedBytes / allowanceBytes) * 100;
  return roundTo(Math.min(100, Math.max(0, left)), 1);
}

export interface UsageFigures {
  planAllowanceGB: number | null;
  percentOfPlan: number | null;
  forecastMonthEndGB: number | null;
}

/**
 * A camera's use as a share of its plan, and where it will end the month at its current rate:
 * the rate since the month began (or since activation, if later), over at least a day so the
 * first hours of a month do not extrapolate wildly. A camera that cannot use data (paused,
 * barred, terminated) ends the month where it is.
 */
export function usageFigures(input: {
  monthBytes: number;
  allowanceGb: number | null;
  isMetering: boolean;
  now: Date;
  monthStart: Date;
  nextMonthStart: Date;
  activatedAt: Date | null;
}): UsageFigures {
  if (input.allowanceGb === null || input.allowanceGb <= 0) {
    return { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null };
  }
  const usedGb = input.monthBytes / bytesPerGb;
  const since = Math.max(input.monthStart.getTime(), input.activatedAt?.getTime() ?? 0);
  const elapsedMs = Math.max(dayMs, input.now.getTime() - since);
  const remainingMs = Math.max(0, input.nextMonthStart.getTime() - input.now.getTime());
  const forecastGb = input.isMetering ? usedGb + (usedGb / elapsedMs) * remainingMs : usedGb;
  return {
    planAllowanceGB: input.allowanceGb,
    percentOfPlan: roundTo((usedGb / input.allowanceGb) * 100, 1),
    forecastMonthEndGB: roundTo(forecastGb, 2),
  };
}

/**
 * What resuming a camera's paused data costs, in a farmer's words (decision 095). The plans
 * have no charge for data over the allowance (no metered price in the catalogue or the billing
 * engine), so it costs nothing more; the sentence says so rather than a price.
 */
export function dataCapCostNote(productName: string | null, allowanceGb: number | null): string {
  const plan = productName ? `the ${productName} plan` : 'its plan';
  const allowance = allowanceGb === null ? 'its allowance' : `its ${formatGb(allowanceGb)}`;
  return (
    `Resuming adds nothing to your bill: ${plan} has no charge for data used over ${allowance}. ` +
    'The camera then uses data until the 1st, when the allowance starts again.'
  );
}

export interface SimStatusWords {
  currentlyActive: string;
  disabledByProvider: string;
  note: string | null;
}

/**
 * The SIM information card's answers in words that agree with each other (decision 111): a SIM
 * that is not active says why (paused, switched off and when), "disabled by the provider" is only
 * "Yes" when the provider barred it, and a switched-off SIM says what happened and what to do.
 */
export function simStatusWords(sim: {
  state: SimState;
  isBarred: boolean;
  terminatedAt: Date | null;
  /** The SIM's current subscription still runs (a terminated SIM with a plan: 'attention'). */
  hasRunningPlan: boolean;
}): SimStatusWords {
  const when = sim.terminatedAt ? ` on ${formatDay(businessDay(sim.terminatedAt))}` : '';
  if (sim.state === 'terminated') {
    if (sim.hasRunningPlan) {
      return {
        currentlyActive: `No: the network switched it off${when}`,
        disabledByProvider: 'No: switched off, not barred',
        note: `The network switched this SIM off${when}, but its plan is still running, so the camera cannot send anything. Please contact support and we will put it right.`,
      };
    }
    return {
      currentlyActive: `No: switched off${when}`,
      disabledByProvider: 'No: it was switched off when its plan ended',
      note: `This SIM was switched off${when}, when its plan ended. A switched-off SIM cannot be switched on again: activate a new SIM to keep watching this place.`,
    };
  }
  if (sim.isBarred) {
    return {
      currentlyActive:
        sim.state === 'active' ? 'Yes, but it cannot connect while disabled' : 'No: paused',
      disabledByProvider: 'Yes: please contact support',
      note: null,
    };
  }
  return {
    currentlyActive: sim.state === 'active' ? 'Yes' : 'No: paused with its plan',
    disabledByProvider: 'No',
    note: null,
  };
}

export interface FindFacts {
  attention: string | null;
  findStates: CameraFindState[];
  stateOrder: number;
}

/** Card states that need nothing from the farmer, in the order the dashboard lists them. */
const calmOrder: Record<CardState, number> = {
  active: 10,
  'pause-scheduled': 11,
  paused: 12,
  terminated: 13,
  // Never calm: these always need attention (below).
  attention: 0,
  overdue: 1,
  'no-subscription': 3,
};

/**
 * Which of the dashboard's filters a camera is in, why it needs the farmer (in words, for the
 * "Attention" chip and the filter) and how urgent it is (decision 140). One rule for every
 * screen: a camera needs attention when something stops it working or will, and only the farmer
 * or support can put it right: a switched-off SIM whose plan runs, an overdue bill, a SIM the
 * network disabled, a live SIM with no plan, data paused at the allowance, or a silent camera.
 * A pause the farmer asked for and a switched-off SIM with its plan ended need nothing more.
 */
export function findFacts(camera: {
  cardState: CardState;
  isBarred: boolean;
  silenceHours: number | null;
  isDataCapped: boolean;
  isLivestreaming: boolean;
}): FindFacts {
  const reasons: [order: number, words: string][] = [];
  if (camera.cardState === 'attention') {
    reasons.push([0, 'SIM switched off while its plan runs: contact support']);
  }
  if (camera.cardState === 'overdue') reasons.push([1, 'Bill overdue: pay it to keep the plan']);
  if (camera.isBarred && camera.cardState !== 'terminated') {
    reasons.push([2, 'SIM disabled by the network: contact support']);
  }
  if (camera.cardState === 'no-subscription') {
    reasons.push([3, 'No plan: renew to keep it streaming']);
  }
  if (camera.isDataCapped) reasons.push([4, "Data paused: it used its plan's allowance"]);
  if (camera.silenceHours !== null) {
    const hours = camera.silenceHours;
    reasons.push([5, `Silent: nothing heard for ${hours} ${hours === 1 ? 'hour' : 'hours'}`]);
  }
  const states: CameraFindState[] = [];
  if (reasons.length > 0) states.push('needs-attention');
  if (camera.cardState === 'overdue') states.push('overdue');
  if (camera.cardState === 'paused') states.push('paused');
  if (camera.cardState === 'no-subscription') states.push('no-plan');
  if (camera.isLivestreaming) states.push('livestreaming');
  if (camera.silenceHours !== null) states.push('silent');
  const first = reasons[0];
  return {
    attention: first ? first[1] : null,
    findStates: states,
    stateOrder: first ? first[0] : calmOrder[camera.cardState],
  };
}
