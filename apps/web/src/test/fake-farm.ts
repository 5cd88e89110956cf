import type {
  ActivityEntry,
  Camera,
  CameraAlertSettings,
  CameraAlertSettingsResponse,
  EligiblePlan,
  PlansResponse,
  TeamMember,
} from '@farmcam/contract';
import { buildCamera, buildPlans } from '../features/dashboard/testing/build-camera.ts';
import { jsonResponse, mockFetch, ownerAccess } from './test-utils.tsx';

/**
 * A small farm's API that remembers what was changed (tests of screens that must agree with
 * each other after a change, decision 112): two cameras, their plans, pauses, alerts, team and
 * activity log. Answers as the server does, in the contract's shapes; only what the screens ask.
 */
export interface FakeFarm {
  /** Every GET asked, by path, in order. */
  reads: string[];
  camera: (iccid: string) => Camera;
}

const catalogue = [
  { tier: 'Light', gb: 5, amount: 1200 },
  { tier: 'Standard', gb: 15, amount: 2000 },
  { tier: 'Heavy', gb: 50, amount: 3500 },
];

export const farmCameras = {
  topGate: { iccid: '8944110000000001014', billingId: 'cus_1' },
  fuelTank: { iccid: '8944110000000001071', billingId: 'cus_2' },
};

export function serveFakeFarm(): FakeFarm {
  const cameras = new Map<string, Camera>(
    [
      buildCamera({
        SIM_ICCID: farmCameras.topGate.iccid,
        nicknameInDatabase: 'Top gate',
        STRIPE_CUSTOMER_ID: farmCameras.topGate.billingId,
      }),
      buildCamera({
        SIM_ICCID: farmCameras.fuelTank.iccid,
        nicknameInDatabase: 'Fuel tank',
        STRIPE_CUSTOMER_ID: farmCameras.fuelTank.billingId,
      }),
    ].map((camera) => [camera.SIM_ICCID, camera]),
  );
  const alerts = new Map<string, Omit<CameraAlertSettingsResponse, 'canChange'>>();
  const members: TeamMember[] = [];
  const activity: ActivityEntry[] = [];
  const reads: string[] = [];

  const byBilling = (id: string) =>
    [...cameras.values()].find((camera) => camera.STRIPE_CUSTOMER_ID === id);
  const log = (summary: string, iccid: string | null) =>
    activity.unshift({
      id: `a${activity.length + 1}`,
      at: '2026-07-01T14:05:00.000Z',
      category: 'cameras',
      action: 'camera.rename',
      summary,
      actor: { kind: 'owner', email: 'farmer@example.com', staffEmail: null },
      iccid,
      ip: null,
      place: null,
      userAgent: null,
    });
  const plansOf = (camera: Camera): EligiblePlan[] =>
    catalogue.map(({ tier, gb, amount }) => ({
      id: `price_${tier.toLowerCase()}_month_uk`,
      product_id: `prod_${tier.toLowerCase()}`,
      product_name: `${tier} Streaming`,
      unit_amount: amount,
      currency: 'gbp',
      recurring: { interval: 'month' },
      subscribed: camera.stripeSubscription?.productName === `${tier} Streaming`,
      upgrade_data: false,
      upgrade_value: false,
      change: 'same',
      data_allowance_gb: gb,
      amountSaved: 0,
      metadata: {},
      features: [`${gb} GB of data a month`],
    }));

  mockFetch((url, init) => {
    const method = init.method ?? 'GET';
    const path = url.pathname;
    const body = init.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};
    if (method === 'GET') reads.push(path);
    const segment = path.split('/').at(-1) ?? '';

    if (path === '/api/auth/user-data') {
      return jsonResponse(200, {
        data: {
          email: 'farmer@example.com',
          role: 'customer',
          customerId: 'c1',
          impersonation: null,
          access: ownerAccess('farmer@example.com'),
        },
      });
    }
    if (path === '/api/cameras/plansV2') {
      const plans: PlansResponse = buildPlans([...cameras.values()]);
      return jsonResponse(200, plans);
    }
    if (path === '/api/cameras/update-nickname' && method === 'POST') {
      const camera = cameras.get(String(body.simIccid))!;
      log(`Renamed "${camera.nicknameInDatabase}" to "${String(body.nickname)}"`, camera.SIM_ICCID);
      camera.nicknameInDatabase = String(body.nickname);
      camera.displayName = camera.nicknameInDatabase;
      return jsonResponse(200, {
        success: true,
        message: 'Camera name updated successfully',
        nickname: camera.nicknameInDatabase,
      });
    }
    if (path.startsWith('/api/cameras/sim-info/')) {
      const camera = cameras.get(segment)!;
      return jsonResponse(200, {
        nickname: camera.nicknameInDatabase,
        simInfo: {
          connectionDate: '2025-08-01T00:00:00.000Z',
          isActive: true,
          isBarred: false,
          physicalId: camera.SIM_ICCID,
          terminateDate: null,
          state: 'active',
          statusWords: { currentlyActive: 'Yes', disabledByProvider: 'No', note: null },
        },
      });
    }
    if (path.startsWith('/api/cameras/router-info/')) {
      return jsonResponse(200, { routerInfo: null, updatedAt: null, unavailableReason: null });
    }
    if (path.startsWith('/api/data-usage/')) return jsonResponse(200, { dailyGB: {}, today: null });
    if (path.startsWith('/api/cameras/timelapses/')) {
      return jsonResponse(200, { hasLivestream: false, retentionDays: 30, timelapses: [] });
    }
    if (path.startsWith('/api/cameras/alert-settings/')) {
      if (method === 'PUT') {
        alerts.set(segment, {
          ...(body as unknown as CameraAlertSettings),
          unavailableReason: null,
          silence: null,
        });
        log('Changed the alerts', segment);
      }
      const saved = alerts.get(segment) ?? {
        silenceHours: 6,
        dataAlertPercent: 80,
        pauseDataAtAllowance: false,
        noClipHours: null,
        unavailableReason: null,
        silence: null,
      };
      return jsonResponse(200, { ...saved, canChange: true });
    }
    if (path === '/api/team/me/camera-alerts') {
      return jsonResponse(200, { cameraAlerts: true, isOwner: true });
    }
    if (path.startsWith('/api/billing/account/')) {
      const camera = byBilling(segment);
      if (!camera) return jsonResponse(404, { code: 'NOT_FOUND', message: 'Not found' });
      return jsonResponse(200, {
        customer_id: segment,
        camera: { iccid: camera.SIM_ICCID, nickname: camera.nicknameInDatabase },
        can_manage_plan: true,
        manage_plan_refusal: null,
      });
    }
    if (path.startsWith('/api/subscriptions/fetch-eligible-plans/')) {
      const camera = byBilling(segment)!;
      const isPaused = camera.cardState === 'pause-scheduled';
      return jsonResponse(200, {
        eligible_plans: plansOf(camera),
        subscription_status: 'active',
        can_switch: !isPaused,
        switch_refusal: isPaused ? 'Cancel the scheduled pause before switching plan.' : null,
        // A scheduled pause can be moved; otherwise the card's own answer (decision 170).
        can_pause: camera.canPause || isPaused,
        pause_refusal:
          camera.canPause || isPaused
            ? null
            : (camera.pauseReason ?? 'This camera has no active subscription to pause.'),
      });
    }
    if (path.startsWith('/api/subscriptions/preview-change/')) {
      const plan = plansOf(byBilling(segment)!).find(
        (candidate) => candidate.id === url.searchParams.get('newPlanId'),
      )!;
      return jsonResponse(200, { plan, amount_due: 780, credit: 0, currency: 'gbp', lines: [] });
    }
    if (path === '/api/subscriptions/change-plan' && method === 'POST') {
      const camera = byBilling(String(body.customerId))!;
      const plan = plansOf(camera).find((candidate) => candidate.id === body.newPlanId)!;
      camera.stripeSubscription = { ...camera.stripeSubscription!, productName: plan.product_name };
      camera.tier = plan.product_id.replace('prod_', '') as Camera['tier'];
      log(`Switched to ${plan.product_name}`, camera.SIM_ICCID);
      return jsonResponse(200, {
        success: true,
        message: `Switched to ${plan.product_name} (monthly)`,
        subscription: { id: 'sub_1', price_id: plan.id, status: 'active' },
        invoice: null,
      });
    }
    if (path.startsWith('/api/billing/all-payment-methods/')) {
      return jsonResponse(200, { payment_methods: [] });
    }
    if (path.startsWith('/api/pause/check-active-pause/')) {
      const camera = byBilling(segment)!;
      const pause = camera.statusData.subscriptionStatus.pause;
      return jsonResponse(200, {
        has_active_pause: pause !== null,
        state: pause ? 'scheduled' : null,
        pause: pause ? { start_date: pause.start_date, end_date: pause.end_date } : null,
      });
    }
    if (path.startsWith('/api/pause/pause-dates/')) {
      return jsonResponse(200, {
        pause_options: {
          message: 'Your plan can be paused from 1 August 2026.',
          pause_from: '2026-08-01',
          resume_dates: ['2026-09-01', '2026-10-01'],
          customer_id: segment,
          current_pause: null,
        },
      });
    }
    if (path === '/api/pause/pause-subscription' && method === 'POST') {
      const camera = byBilling(String(body.customer_id))!;
      const pause = { start_date: '2026-08-01', end_date: String(body.resume_date) };
      Object.assign(camera, {
        SubStatus: 'pause scheduled',
        labelDashboard: 'pause scheduled',
        cardState: 'pause-scheduled',
        canPause: false,
        canCancelPause: true,
        canSwitch: false,
        statusData: { subscriptionStatus: { status: 'active', pause } },
      });
      log('Scheduled a pause', camera.SIM_ICCID);
      return jsonResponse(200, {
        success: true,
        message: 'Subscription paused successfully',
        pause,
      });
    }
    if (path === '/api/account/spend-alert') {
      return jsonResponse(200, {
        amountMinor: null,
        currency: 'GBP',
        month: '2026-07',
        raisedMinor: 0,
        upcomingMinor: 0,
        expectedMinor: 0,
        alertSentAt: null,
      });
    }
    if (path === '/api/team' && method === 'GET') {
      return jsonResponse(200, {
        members,
        cameras: [...cameras.values()].map((camera) => ({
          iccid: camera.SIM_ICCID,
          nickname: camera.nicknameInDatabase ?? '',
        })),
      });
    }
    if (path === '/api/team/invite' && method === 'POST') {
      const member: TeamMember = {
        id: `11111111-1111-4111-8111-11111111111${members.length}`,
        email: String(body.email),
        role: body.role === 'manager' ? 'manager' : 'viewer',
        allCameras: true,
        cameras: [],
        accessUntil: null,
        status: 'invited',
        invitedAt: '2026-07-01T10:00:00.000Z',
        acceptedAt: null,
        invitationExpiresAt: '2026-07-08T10:00:00.000Z',
      };
      members.push(member);
      log(`Invited ${member.email} as a ${member.role}`, null);
      return jsonResponse(201, { member });
    }
    if (path === '/api/activity') return jsonResponse(200, { entries: activity, nextCursor: null });
    return jsonResponse(404, { code: 'NOT_FOUND', message: `No fake for ${method} ${path}` });
  });

  return { reads, camera: (iccid) => cameras.get(iccid)! };
}
