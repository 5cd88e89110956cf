/**
 * Who may start a live view of a camera, and why not (decision 154): the one place these rules
 * live. Each refusal says what happened and what to do, as a sentence a farmer reads on the
 * camera page; the web shows it and never decides.
 */
import type { LiveViewAllowance } from '@farmcam/contract';
import { deriveSubStatus } from '../cameras/camera-state.ts';
import { bytesPerGb } from '../cameras/camera-state.ts';
import type { LiveViewCameraFacts } from './live-view.repository.ts';

export interface LiveViewRefusal {
  reason: string;
  action: { label: string; path: string } | null;
}

/** The plan's Hours of live viewing a month, or null when its metadata gives none. */
export function hoursOfPlan(hoursMetadata: string | null): number | null {
  if (hoursMetadata === null) return null;
  const hours = Number(hoursMetadata.trim());
  return Number.isFinite(hours) && hours > 0 ? hours : null;
}

/** What the cost panel shows: the plan's Hours and data this month, and what is left of them. */
export function allowanceOf(facts: LiveViewCameraFacts): LiveViewAllowance {
  const hours = hoursOfPlan(facts.hours_metadata);
  const allowanceBytes =
    facts.data_allowance_gb === null ? null : facts.data_allowance_gb * bytesPerGb;
  return {
    hoursIncluded: hours,
    secondsUsed: Math.round(facts.seconds_used),
    secondsLeft: hours === null ? null : Math.max(0, Math.round(hours * 3600 - facts.seconds_used)),
    dataAllowanceBytes: allowanceBytes,
    dataUsedBytes: facts.month_bytes,
    dataLeftBytes: allowanceBytes === null ? null : Math.max(0, allowanceBytes - facts.month_bytes),
  };
}

/** "1 December": the first day of the next UK month, when Hours and allowance start again. */
export function nextMonthWords(ukDay: string): string {
  const [year, month] = ukDay.split('-').map(Number) as [number, number];
  const next = new Date(Date.UTC(month === 12 ? year + 1 : year, month === 12 ? 0 : month, 1));
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    timeZone: 'UTC',
  }).format(next);
}

/**
 * Why this camera cannot start a live view now, or null. Checked in this order: the plan (which
 * plan has Hours), the subscription and SIM, the owner's switch, data paused at the allowance,
 * the month's Hours used up. Joining a pull already running is refused by the same rules: the
 * view costs the same data whoever started it.
 */
export function liveViewRefusal(
  facts: LiveViewCameraFacts,
  context: {
    today: string;
    plansWithHours: { name: string; hours: string }[];
    isOwner: boolean;
  },
): LiveViewRefusal | null {
  const planAction = (label: string) =>
    context.isOwner && facts.billing_customer_id
      ? { label, path: `/subscription/${facts.billing_customer_id}` }
      : null;
  const hours = hoursOfPlan(facts.hours_metadata);
  if (hours === null) {
    const offer = context.plansWithHours[0];
    const current = facts.product_name
      ? `This camera is on ${facts.product_name}, which`
      : 'This camera has no plan, so it';
    return {
      reason: offer
        ? `${current} has no hours of live view. ${offer.name} includes ${offer.hours} hours of live view a month.`
        : `${current} has no hours of live view, and no plan offers them at the moment.`,
      action: offer ? planAction(`Change to ${offer.name}`) : null,
    };
  }
  const subStatus = deriveSubStatus(
    facts.subscription_status
      ? {
          status: facts.subscription_status,
          pauseStartsOn: facts.pause_starts_on,
          pauseResumesOn: facts.pause_resumes_on,
        }
      : null,
    context.today,
  );
  if (subStatus === 'paused') {
    return {
      reason:
        'This camera’s plan is paused, so it sends no video. Resume the plan to watch it live.',
      action: planAction('Manage plan'),
    };
  }
  if (subStatus !== 'active') {
    return {
      reason: `Live view needs an active plan; this camera’s is ${subStatus.replace('_', ' ')}.`,
      action: planAction('Manage plan'),
    };
  }
  if (facts.state !== 'active' || facts.is_barred) {
    return {
      reason: 'This camera’s SIM is not active, so it cannot send video. Please contact support.',
      action: null,
    };
  }
  if (!facts.is_enabled) {
    return {
      reason: context.isOwner
        ? 'You have turned live view off for this camera. Turn it on below to watch.'
        : 'The account owner has turned live view off for this camera. Ask them to turn it on.',
      action: null,
    };
  }
  if (facts.is_data_capped) {
    return {
      reason: `This camera’s data is paused: it has used its monthly allowance. Resume its data on the dashboard, or wait until ${nextMonthWords(context.today)}.`,
      action: context.isOwner ? { label: 'Open the dashboard', path: '/dashboard' } : null,
    };
  }
  if (facts.seconds_used >= hours * 3600) {
    return {
      reason: `This month’s ${hours} hours of live view are used up. They start again on ${nextMonthWords(context.today)}.`,
      action: null,
    };
  }
  return null;
}
