import type { Camera, PlansResponse } from '@farmcam/contract';

let serial = 100;

/** A camera of the plans list, active on a monthly Light plan unless overridden. */
export function buildCamera(overrides: Partial<Camera> = {}): Camera {
  serial += 1;
  const iccid = `894411000000000${serial}`.padEnd(19, '0');
  return {
    SIM_ICCID: iccid,
    nicknameInDatabase: `Camera ${serial}`,
    SubStatus: 'active',
    SimStatus: 'active',
    labelDashboard: 'active',
    dataUsageGB: 1.234,
    STRIPE_CUSTOMER_ID: `cus_test${serial}`,
    stripeSubscription: {
      id: `sub_test${serial}`,
      productName: 'Light Streaming',
      interval: 'month',
      pause_collection: null,
      current_period_end: 1_775_001_600,
    },
    statusData: { subscriptionStatus: { status: 'active', pause: null } },
    isBarred: false,
    usage: { planAllowanceGB: 5, percentOfPlan: 24.7, forecastMonthEndGB: 3.8 },
    ...overrides,
  };
}

export function buildPlans(cameras: Camera[], percentLeft = 57.25): PlansResponse {
  return {
    overallSummary: {
      overallPercentageLeft: percentLeft,
      totalUsageGB: 10.5,
      totalAllowanceGB: 25,
      countedPlans: cameras.length,
    },
    cameras,
  };
}

/** One camera in each card state of spec §4, like the demo account. */
export function camerasInEveryState(): Record<string, Camera> {
  return {
    active: buildCamera({ nicknameInDatabase: 'Top gate' }),
    heavy: buildCamera({
      nicknameInDatabase: 'Farmyard',
      stripeSubscription: {
        id: 'sub_heavy',
        productName: 'Heavy Streaming',
        interval: 'year',
        pause_collection: null,
        current_period_end: 1_800_000_000,
      },
      usage: { planAllowanceGB: 50, percentOfPlan: 91.2, forecastMonthEndGB: 61.4 },
    }),
    paused: buildCamera({
      nicknameInDatabase: 'Grain store',
      SubStatus: 'paused',
      SimStatus: 'paused',
      labelDashboard: 'paused',
      stripeSubscription: {
        id: 'sub_paused',
        productName: 'Standard Streaming',
        interval: 'month',
        pause_collection: { resumes_at: 1_777_593_600 },
        current_period_end: 1_775_001_600,
      },
      statusData: {
        subscriptionStatus: {
          status: 'paused',
          pause: { start_date: '2026-03-01', end_date: '2026-05-01' },
        },
      },
    }),
    pauseScheduled: buildCamera({
      nicknameInDatabase: 'Holiday cottage',
      SubStatus: 'pause scheduled',
      labelDashboard: 'pause scheduled',
      statusData: {
        subscriptionStatus: {
          status: 'active',
          pause: { start_date: '2026-04-01', end_date: '2026-06-01' },
        },
      },
    }),
    pastDue: buildCamera({
      nicknameInDatabase: 'Fuel tank',
      SubStatus: 'past_due',
      labelDashboard: 'past_due',
    }),
    overdue: buildCamera({
      nicknameInDatabase: 'Bottom field',
      SubStatus: 'overdue',
      labelDashboard: 'overdue',
    }),
    terminated: buildCamera({
      nicknameInDatabase: 'Old dairy',
      SubStatus: 'canceled',
      SimStatus: 'terminated',
      labelDashboard: 'terminated',
      usage: { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null },
    }),
    noSubscription: buildCamera({
      nicknameInDatabase: 'Machinery shed',
      SubStatus: 'canceled',
      labelDashboard: 'Attention',
      usage: { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null },
    }),
    noPlan: buildCamera({
      nicknameInDatabase: null,
      SubStatus: 'canceled',
      labelDashboard: 'Attention',
      stripeSubscription: null,
      STRIPE_CUSTOMER_ID: null,
      statusData: { subscriptionStatus: { status: null, pause: null } },
      usage: { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null },
    }),
    barred: buildCamera({
      nicknameInDatabase: 'Barred one',
      labelDashboard: 'Barred',
      isBarred: true,
    }),
  };
}
