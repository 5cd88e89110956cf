import { describe, expect, it } from 'vitest';
import type { SubscriptionStatus } from '../../db/schema.ts';
import {
  deriveCardState,
  deriveDashboardLabel,
  deriveSubStatus,
  findFacts,
  isCountedPlan,
  overallPercentageLeft,
  usageFigures,
} from './camera-state.ts';

const today = '2026-03-10';
const subscription = (
  status: SubscriptionStatus,
  pauseStartsOn: string | null = null,
  pauseResumesOn: string | null = null,
) => ({ status, pauseStartsOn, pauseResumesOn });

describe('SubStatus', () => {
  it('follows the subscription status', () => {
    expect(deriveSubStatus(subscription('active'), today)).toBe('active');
    expect(deriveSubStatus(subscription('paused'), today)).toBe('paused');
    expect(deriveSubStatus(subscription('past_due'), today)).toBe('past_due');
    expect(deriveSubStatus(subscription('overdue'), today)).toBe('overdue');
    expect(deriveSubStatus(subscription('canceled'), today)).toBe('canceled');
  });

  it('has no plan without a subscription or with an unpaid first one', () => {
    expect(deriveSubStatus(null, today)).toBe('canceled');
    expect(deriveSubStatus(subscription('incomplete'), today)).toBe('canceled');
  });

  it("is 'pause scheduled' while an active subscription's pause lies ahead", () => {
    expect(deriveSubStatus(subscription('active', '2026-04-01', '2026-06-01'), today)).toBe(
      'pause scheduled',
    );
    expect(deriveSubStatus(subscription('active', '2026-03-11', '2026-05-01'), today)).toBe(
      'pause scheduled',
    );
  });

  it('is paused once the pause window covers today, even before the status flips', () => {
    expect(deriveSubStatus(subscription('active', '2026-03-10', '2026-05-01'), today)).toBe(
      'paused',
    );
  });

  it('follows the pause rule of billing: a start date without a resume date is no pause', () => {
    // Every writer sets both dates or neither; billing's rule (decision 081) decides the rest.
    expect(deriveSubStatus(subscription('active', '2026-03-01', null), today)).toBe('active');
    expect(deriveSubStatus(subscription('paused', null, null), today)).toBe('paused');
    // The resume date has come but the job has not yet moved the stored status.
    expect(deriveSubStatus(subscription('paused', '2026-01-01', '2026-03-10'), today)).toBe(
      'active',
    );
  });

  it('is active again from the resume date', () => {
    expect(deriveSubStatus(subscription('active', '2026-01-01', '2026-03-10'), today)).toBe(
      'active',
    );
  });
});

describe('card state (docs/requirements.md#states)', () => {
  it.each([
    ['active', 'active', 'active'],
    ['paused', 'paused', 'paused'],
    ['pause scheduled', 'active', 'pause-scheduled'],
    ['past_due', 'active', 'overdue'],
    ['overdue', 'active', 'overdue'],
    ['canceled', 'terminated', 'terminated'],
    ['canceled', 'active', 'no-subscription'],
    ['canceled', 'paused', 'no-subscription'],
    // The provider ended the SIM while the plan runs: not a docs/requirements.md#states state (decision 014).
    ['active', 'terminated', 'attention'],
    ['paused', 'terminated', 'attention'],
    ['overdue', 'terminated', 'attention'],
  ] as const)('SubStatus %s with SimStatus %s is %s', (subStatus, simStatus, expected) => {
    expect(deriveCardState(subStatus, simStatus)).toBe(expected);
  });
});

describe('labelDashboard', () => {
  it('is the SubStatus for live cameras', () => {
    expect(deriveDashboardLabel('active', 'active', false)).toBe('active');
    expect(deriveDashboardLabel('pause scheduled', 'active', false)).toBe('pause scheduled');
    expect(deriveDashboardLabel('past_due', 'active', false)).toBe('past_due');
  });

  it('says Attention, Barred or terminated when those apply', () => {
    expect(deriveDashboardLabel('canceled', 'active', false)).toBe('Attention');
    expect(deriveDashboardLabel('active', 'active', true)).toBe('Barred');
    expect(deriveDashboardLabel('canceled', 'active', true)).toBe('Barred');
    expect(deriveDashboardLabel('canceled', 'terminated', true)).toBe('terminated');
    expect(deriveDashboardLabel('active', 'terminated', false)).toBe('Attention');
  });
});

describe('combined plan', () => {
  it('counts plans in force this month only', () => {
    expect(isCountedPlan('active', 'active')).toBe(true);
    expect(isCountedPlan('pause scheduled', 'active')).toBe(true);
    expect(isCountedPlan('overdue', 'active')).toBe(true);
    expect(isCountedPlan('paused', 'paused')).toBe(false);
    expect(isCountedPlan('canceled', 'active')).toBe(false);
    expect(isCountedPlan('active', 'terminated')).toBe(false);
  });

  it('rounds the remaining share to one decimal and clamps it to 0..100', () => {
    expect(overallPercentageLeft(0, 5e9)).toBe(100);
    expect(overallPercentageLeft(2.5e9, 5e9)).toBe(50);
    expect(overallPercentageLeft(1e9, 3e9)).toBe(66.7);
    expect(overallPercentageLeft(2e9, 3e9)).toBe(33.3);
    // 99.95% left rounds half up to 100.0; 0.04% left rounds to 0.
    expect(overallPercentageLeft(2.5e6, 5e9)).toBe(100);
    expect(overallPercentageLeft(4.998e9, 5e9)).toBe(0);
    expect(overallPercentageLeft(7e9, 5e9)).toBe(0);
    expect(overallPercentageLeft(0, 0)).toBe(100);
  });
});

describe('usage figures', () => {
  const march = {
    now: new Date('2026-03-11T00:00:00Z'),
    monthStart: new Date('2026-03-01T00:00:00Z'),
    nextMonthStart: new Date('2026-04-01T00:00:00Z'),
    activatedAt: new Date('2025-06-01T00:00:00Z'),
  };

  it('gives the share of the plan and a month-end forecast at the current rate', () => {
    // 10 days gone, 2 GB used: 0.2 GB a day for 31 days is 6.2 GB.
    expect(usageFigures({ ...march, monthBytes: 2e9, allowanceGb: 5, isMetering: true })).toEqual({
      planAllowanceGB: 5,
      percentOfPlan: 40,
      forecastMonthEndGB: 6.2,
    });
  });

  it('measures the rate from activation when the camera started this month', () => {
    const figures = usageFigures({
      ...march,
      activatedAt: new Date('2026-03-09T00:00:00Z'),
      monthBytes: 1e9,
      allowanceGb: 15,
      isMetering: true,
    });
    // 2 days, 1 GB: 0.5 GB a day for the 21 days left.
    expect(figures.forecastMonthEndGB).toBe(11.5);
  });

  it('does not extrapolate from the first hours of a month', () => {
    const figures = usageFigures({
      ...march,
      now: new Date('2026-03-01T02:00:00Z'),
      monthBytes: 0.1e9,
      allowanceGb: 5,
      isMetering: true,
    });
    // Spread over a whole day at least: 0.1 GB a day, not 1.2 GB.
    expect(figures.forecastMonthEndGB).toBeCloseTo(3.19, 2);
  });

  it('keeps a camera that cannot use data where it is, and has none without a plan', () => {
    expect(
      usageFigures({ ...march, monthBytes: 2e9, allowanceGb: 5, isMetering: false })
        .forecastMonthEndGB,
    ).toBe(2);
    expect(
      usageFigures({ ...march, monthBytes: 2e9, allowanceGb: null, isMetering: true }),
    ).toEqual({ planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null });
  });

  it('lets the share pass 100%', () => {
    expect(
      usageFigures({ ...march, monthBytes: 6e9, allowanceGb: 5, isMetering: true }).percentOfPlan,
    ).toBe(120);
  });
});

describe('what the dashboard finds a camera by (decision 140)', () => {
  const calm = {
    cardState: 'active',
    isBarred: false,
    silenceHours: null,
    isDataCapped: false,
    isLivestreaming: false,
  } as const;

  it('needs nothing from the farmer while all is well, paused on purpose or switched off', () => {
    expect(findFacts(calm)).toEqual({ attention: null, findStates: [], stateOrder: 10 });
    expect(findFacts({ ...calm, cardState: 'pause-scheduled' }).stateOrder).toBe(11);
    expect(findFacts({ ...calm, cardState: 'paused' })).toEqual({
      attention: null,
      findStates: ['paused'],
      stateOrder: 12,
    });
    // A switched-off SIM's barring is history: nothing to put right.
    expect(findFacts({ ...calm, cardState: 'terminated', isBarred: true })).toEqual({
      attention: null,
      findStates: [],
      stateOrder: 13,
    });
  });

  it('gives the most urgent reason first, and every filter the camera is in', () => {
    expect(
      findFacts({
        ...calm,
        cardState: 'overdue',
        silenceHours: 1,
        isDataCapped: true,
        isLivestreaming: true,
      }),
    ).toEqual({
      attention: 'Bill overdue: pay it to keep the plan',
      findStates: ['needs-attention', 'overdue', 'livestreaming', 'silent'],
      stateOrder: 1,
    });
    expect(findFacts({ ...calm, cardState: 'attention' })).toMatchObject({
      attention: 'SIM switched off while its plan runs: contact support',
      stateOrder: 0,
    });
    expect(findFacts({ ...calm, isBarred: true })).toMatchObject({
      attention: 'SIM disabled by the network: contact support',
      findStates: ['needs-attention'],
      stateOrder: 2,
    });
    expect(findFacts({ ...calm, cardState: 'no-subscription' })).toMatchObject({
      findStates: ['needs-attention', 'no-plan'],
      stateOrder: 3,
    });
    expect(findFacts({ ...calm, isDataCapped: true })).toMatchObject({
      attention: "Data paused: it used its plan's allowance",
      stateOrder: 4,
    });
    expect(findFacts({ ...calm, silenceHours: 1 }).attention).toBe(
      'Silent: nothing heard for 1 hour',
    );
  });
});
