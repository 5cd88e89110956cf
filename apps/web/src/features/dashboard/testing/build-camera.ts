import type { Camera, PlansResponse } from '@farmcam/contract';
import { cameraNameOf } from '@farmcam/contract/rules';

let serial = 100;

/** A camera of the plans list, active on a monthly Light plan unless overridden. */
export function buildCamera(overrides: Partial<Camera> = {}): Camera {
  serial += 1;
  const iccid = `894411000000000${serial}`.padEnd(19, '0');
  const camera: Omit<Camera, 'displayName'> = {
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
    tier: 'light',
    statusData: { subscriptionStatus: { status: 'active', pause: null } },
    isBarred: false,
    usage: { planAllowanceGB: 5, percentOfPlan: 24.7, forecastMonthEndGB: 3.8 },
    cardState: 'active',
    canLivestream: false,
    livestreamAction: null,
    canPause: true,
    pauseReason: null,
    canCancelPause: false,
    canSwitch: true,
    switchReason: null,
    canManagePlan: true,
    canPayNow: false,
    canRenew: false,
    terminatedOn: null,
    silence: null,
    dataCap: null,
    unpaid: null,
    attention: null,
    findStates: [],
    stateOrder: 10,
    isLivestreaming: false,
    ...overrides,
  };
  // The server names the camera by the shared rule (decision 170) unless a test says otherwise.
  return {
    ...camera,
    displayName: overrides.displayName ?? cameraNameOf(camera.nicknameInDatabase, camera.SIM_ICCID),
  };
}

export function buildPlans(cameras: Camera[], percentLeft = 57.25): PlansResponse {
  return {
    overallSummary: {
      overallPercentageLeft: percentLeft,
      totalUsageGB: 10.5,
      totalAllowanceGB: 25,
      countedPlans: cameras.length,
      notCounted: { paused: 0, withoutPlan: 0, switchedOff: 0 },
    },
    cameras,
    supportEmail: 'support@farmcam.test',
  };
}

/** What the server's findFacts says of an overdue camera and of a live one without a plan. */
const overdueFacts = {
  attention: 'Bill overdue: pay it to keep the plan',
  findStates: ['needs-attention', 'overdue'],
  stateOrder: 1,
} satisfies Partial<Camera>;
const noPlanFacts = {
  attention: 'No plan: renew to keep it streaming',
  findStates: ['needs-attention', 'no-plan'],
  stateOrder: 3,
} satisfies Partial<Camera>;

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
      tier: 'heavy',
      usage: { planAllowanceGB: 50, percentOfPlan: 91.2, forecastMonthEndGB: 61.4 },
      canLivestream: true,
      livestreamAction: 'set-up',
      isLivestreaming: true,
      findStates: ['livestreaming'],
      canPause: false,
      pauseReason: 'Annual plans are paid for the year ahead, so they cannot be paused.',
    }),
    paused: buildCamera({
      nicknameInDatabase: 'Grain store',
      SubStatus: 'paused',
      SimStatus: 'paused',
      labelDashboard: 'paused',
      cardState: 'paused',
      findStates: ['paused'],
      stateOrder: 12,
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
      tier: 'standard',
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
      stateOrder: 11,
      canPause: false,
      canCancelPause: true,
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
      ...overdueFacts,
      canPause: false,
      canPayNow: true,
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
      ...overdueFacts,
      canPause: false,
      canPayNow: true,
      canSwitch: false,
      switchReason: 'Please pay the overdue invoice before switching plan.',
    }),
    terminated: buildCamera({
      nicknameInDatabase: 'Old dairy',
      SubStatus: 'canceled',
      SimStatus: 'terminated',
      labelDashboard: 'terminated',
      cardState: 'terminated',
      stateOrder: 13,
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
      ...noPlanFacts,
      canPause: false,
      canRenew: true,
      canSwitch: false,
      switchReason: 'This camera has no active subscription. Renew it first.',
      usage: { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null },
    }),
    noPlan: buildCamera({
      nicknameInDatabase: null,
      SubStatus: 'canceled',
      labelDashboard: 'Attention',
      cardState: 'no-subscription',
      ...noPlanFacts,
      canPause: false,
      canSwitch: false,
      switchReason: 'This camera has no active subscription. Renew it first.',
      stripeSubscription: null,
      tier: null,
      STRIPE_CUSTOMER_ID: null,
      statusData: { subscriptionStatus: { status: null, pause: null } },
      usage: { planAllowanceGB: null, percentOfPlan: null, forecastMonthEndGB: null },
    }),
    terminatedWithPlan: buildCamera({
      nicknameInDatabase: 'Old barn',
      SimStatus: 'terminated',
      labelDashboard: 'Attention',
      cardState: 'attention',
      attention: 'SIM switched off while its plan runs: contact support',
      findStates: ['needs-attention'],
      stateOrder: 0,
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
      tier: 'heavy',
    }),
    barred: buildCamera({
      nicknameInDatabase: 'Barred one',
      labelDashboard: 'Barred',
      isBarred: true,
      attention: 'SIM disabled by the network: contact support',
      findStates: ['needs-attention'],
      stateOrder: 2,
    }),
  };
}
