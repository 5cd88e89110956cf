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
    cardState: 'active',
    canLivestream: false,
    canPause: true,
    pauseReason: null,
    canSwitch: true,
    switchReason: null,
    canManagePlan: true,
    terminatedOn: null,
    silence: null,
    dataCap: null,
    unpaid: null,
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
    supportEmail: 'support@farmcam.test',
  };
}

/** One camera in each card state of docs/requirements.md#states, like the demo account. */
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
      canLivestream: true,
      canPause: false,
      pauseReason: 'Annual plans are paid for the year ahead, so they cannot be paused.',
    }),
    paused: buildCamera({
      nicknameInDatabase: 'Grain store',
      SubStatus: 'paused',
      SimStatus: 'paused',
      labelDashboard: 'paused',
      cardState: 'paused',
      canPause: false,
      canSwitch: false,
      switchReason: 'This plan is paused. Plans can be switched once it restarts.',
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
      cardState: 'pause-scheduled',
      canPause: false,
      canSwitch: false,
      switchReason: 'Cancel the scheduled pause before switching plan.',
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
      cardState: 'overdue',
      canPause: false,
      canSwitch: false,
      switchReason: 'Please pay the overdue invoice before switching plan.',
      unpaid: {
        amountDue: 2000,
        currency: 'gbp',
        dueDate: '2026-03-01',
        cause: 'card_expired',
        summary: '£20.00 unpaid since 1 March 2026',
        sentence: 'Your card ending 4242 expired in March 2025: update it to pay £20.00.',
      },
    }),
    overdue: buildCamera({
      nicknameInDatabase: 'Bottom field',
      SubStatus: 'overdue',
      labelDashboard: 'overdue',
      cardState: 'overdue',
      canPause: false,
      canSwitch: false,
      switchReason: 'Please pay the overdue invoice before switching plan.',
    }),
    terminated: buildCamera({
      nicknameInDatabase: 'Old dairy',
      SubStatus: 'canceled',
      SimStatus: 'terminated',
      labelDashboard: 'terminated',
      cardState: 'terminated',
      canPause: false,
      canSwitch: false,
      canManagePlan: false,
      terminatedOn: '2026-01-01',
      switchReason: 'This camera has no active subscription. Renew it first.',
      usage: { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null },
    }),
    noSubscription: buildCamera({
      nicknameInDatabase: 'Machinery shed',
      SubStatus: 'canceled',
      labelDashboard: 'Attention',
      cardState: 'no-subscription',
      canPause: false,
      canSwitch: false,
      switchReason: 'This camera has no active subscription. Renew it first.',
      usage: { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null },
    }),
    noPlan: buildCamera({
      nicknameInDatabase: null,
      SubStatus: 'canceled',
      labelDashboard: 'Attention',
      cardState: 'no-subscription',
      canPause: false,
      canSwitch: false,
      switchReason: 'This camera has no active subscription. Renew it first.',
      stripeSubscription: null,
      STRIPE_CUSTOMER_ID: null,
      statusData: { subscriptionStatus: { status: null, pause: null } },
      usage: { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null },
    }),
    terminatedWithPlan: buildCamera({
      nicknameInDatabase: 'Old barn',
      SimStatus: 'terminated',
      labelDashboard: 'Attention',
      cardState: 'attention',
      canPause: false,
      canManagePlan: false,
      terminatedOn: '2026-02-03',
      stripeSubscription: {
        id: 'sub_old_barn',
        productName: 'Heavy Streaming',
        interval: 'month',
        pause_collection: null,
        current_period_end: 1_775_001_600,
      },
    }),
    barred: buildCamera({
      nicknameInDatabase: 'Barred one',
      labelDashboard: 'Barred',
      isBarred: true,
    }),
  };
}
