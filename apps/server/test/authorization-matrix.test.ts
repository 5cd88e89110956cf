/**
 * Zero leaks (issue 16, docs/decisions/091): every customer endpoint, called by the owner, a
 * manager of all cameras, a manager of another camera, a viewer of this camera, a viewer of
 * another camera, a member past their last day, a removed member, another customer, staff inside
 * the owner's portal, plain staff and a stranger. A change a role may not make is 403, a camera
 * outside the person's cameras 404 (said exactly as for a camera that is not theirs), an ended
 * access or no session 401.
 *
 * The list of endpoints comes from the router itself (as the fuzz test's does): a new route with
 * no row below fails this test until someone says who may call it.
 */
import type { PlansResponse } from '@farmcam/contract';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sims } from '../src/db/schema.ts';
import { notAllowedMessages } from '../src/modules/auth/access.ts';
import { demoIccid, demoStockIccid, seedDemoData } from '../src/seed/demo.ts';
import {
  addMembers,
  createActors,
  expectAccessMatrix,
  matrixOf,
  type AccessMatrix,
  type AccessRule,
  type Actors,
  type MemberActor,
} from './helpers/authorization.ts';
import { listRoutes } from './fuzz/routes.ts';
import { createTestContext, nextIp, type TestContext } from './helpers/test-app.ts';

let context: TestContext;
let actors: Actors & { memberIds: Record<MemberActor, string> };
const billingCustomerOf: Record<number, string> = {};

/** The camera under test (Top gate: Light, active) and another of the owner's (Lambing shed). */
const thisIccid = demoIccid(101);
const otherIccid = demoIccid(102);

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com').then(async (base) => {
    await seedDemoData(context.database.db, context.clock);
    return addMembers(context, base, { thisIccid, otherIccid });
  });
  for (const row of await context.database.db.select().from(sims)) {
    const serial = Number(row.iccid.slice(12, 18));
    if (row.billingCustomerId) billingCustomerOf[serial] = row.billingCustomerId;
  }
});
afterAll(() => context.close());

/** Who may call a route that does not take a customer's session, and why. */
interface OtherRoute {
  kind: 'public' | 'hosted' | 'internal' | 'session' | 'staff';
  why: string;
  /** Staff routes and the session's own routes are run too, with their own matrix. */
  matrix?: AccessMatrix;
  request?: () => InjectOptions;
}

/** A customer route: the rule it enforces and a call that changes nothing for anyone. */
interface CustomerRoute {
  rule: AccessRule;
  request: () => InjectOptions;
  /** Another customer's answer when it is not 404 (their own list, their own activation). */
  otherCustomer?: number | 'ok';
  /** Actors not run (a call that would change their own account differently). */
  skip?: (keyof AccessMatrix)[];
}

type Row = CustomerRoute | OtherRoute;

let phoneSerial = 100;
const read = (camera: boolean): AccessRule => ({ ability: 'read', camera });
const cameraChange: AccessRule = { ability: 'manageCameras', camera: true };
const billing: AccessRule = { ability: 'manageBilling', camera: true };
const id = () => billingCustomerOf[101]!;
const get = (url: string) => () => ({ method: 'GET' as const, url });
const post =
  (url: string, payload: () => Record<string, unknown>, extra: Partial<InjectOptions> = {}) =>
  () => ({ method: 'POST' as const, url, payload: payload(), ...extra });
const clip = {
  camera_id: thisIccid,
  rtsp_port: 554,
  rtsp_path: '/12',
  duration: 15,
  include_audio: false,
};

/** Staff pages: plain staff only; a customer, a member or staff inside a portal is refused. */
const staffOnly = (teamStatus: number): AccessMatrix => ({
  owner: 403,
  manager: 403,
  viewerOfThis: 403,
  expiredMember: 401,
  removedMember: 401,
  otherCustomer: 403,
  team: 403,
  admin: 403,
  teamUnscoped: teamStatus,
  adminUnscoped: 200,
  anonymous: 401,
});

/**
 * Every route the app serves. Writes are called so that they change nothing (the same name, a
 * plan already on, a pause that is not there): the owner's answer is a rule's, past the checks.
 */
const routes: Record<string, Row> = {
  // ── Cameras and usage ──────────────────────────────────────────────────────────────────────
  'GET /api/cameras/plansV2': {
    rule: read(false),
    request: get('/api/cameras/plansV2'),
    otherCustomer: 'ok',
  },
  'GET /api/cameras/sim-info/:iccid': {
    rule: read(true),
    request: get(`/api/cameras/sim-info/${thisIccid}`),
  },
  'GET /api/cameras/router-info/:iccid': {
    rule: read(true),
    request: get(`/api/cameras/router-info/${thisIccid}`),
  },
  // Every role that may see the camera watches and downloads its timelapses (decision 097).
  'GET /api/cameras/timelapses/:iccid': {
    rule: read(true),
    request: get(`/api/cameras/timelapses/${thisIccid}`),
  },
  'POST /api/cameras/update-nickname': {
    rule: cameraChange,
    request: post('/api/cameras/update-nickname', () => ({
      simIccid: thisIccid,
      nickname: 'Top gate',
    })),
  },
  // Nothing is paused: resuming changes nothing (decision 095).
  'POST /api/cameras/data-cap/:iccid/resume': {
    rule: cameraChange,
    request: post(`/api/cameras/data-cap/${thisIccid}/resume`, () => ({})),
  },
  'GET /api/cameras/alert-settings/:iccid': {
    rule: read(true),
    request: get(`/api/cameras/alert-settings/${thisIccid}`),
  },
  'PUT /api/cameras/alert-settings/:iccid': {
    // The defaults again: nothing changes.
    rule: cameraChange,
    request: () => ({
      method: 'PUT' as const,
      url: `/api/cameras/alert-settings/${thisIccid}`,
      payload: {
        silenceHours: 6,
        dataAlertPercent: 80,
        pauseDataAtAllowance: false,
        noClipHours: null,
      },
    }),
  },
  'GET /api/data-usage/:iccid': {
    rule: read(true),
    request: get(`/api/data-usage/${thisIccid}?startDate=2026-03-01&endDate=2026-03-10`),
  },

  // ── Plans, renewals, pauses (manageCameras), cards and invoices (manageBilling) ─────────────
  'GET /api/subscriptions/fetch-eligible-plans/:customerId': {
    rule: cameraChange,
    request: () => get(`/api/subscriptions/fetch-eligible-plans/${id()}`)(),
  },
  'GET /api/subscriptions/preview-change/:customerId': {
    rule: cameraChange,
    request: () =>
      get(`/api/subscriptions/preview-change/${id()}?newPlanId=price_heavy_month_uk`)(),
  },
  'POST /api/subscriptions/change-plan': {
    rule: cameraChange,
    request: post('/api/subscriptions/change-plan', () => ({
      customerId: id(),
      newPlanId: 'price_light_month_uk',
    })),
  },
  'GET /api/subscriptions/renewal-plans/:customerId/:iccid': {
    rule: cameraChange,
    request: () =>
      get(`/api/subscriptions/renewal-plans/${billingCustomerOf[110]}/${demoIccid(110)}`)(),
  },
  'POST /api/subscriptions/renew': {
    rule: cameraChange,
    request: post('/api/subscriptions/renew', () => ({
      customerId: id(),
      iccid: thisIccid,
      priceId: 'price_light_month_uk',
    })),
  },
  'GET /api/pause/pause-dates/:customerId': {
    rule: cameraChange,
    request: () => get(`/api/pause/pause-dates/${id()}`)(),
  },
  'POST /api/pause/pause-subscription': {
    rule: cameraChange,
    request: post('/api/pause/pause-subscription', () => ({
      customer_id: id(),
      resume_date: '2030-01-01',
    })),
  },
  'GET /api/pause/check-active-pause/:customerId': {
    rule: read(true),
    request: () => get(`/api/pause/check-active-pause/${id()}`)(),
  },
  'POST /api/pause/cancel-pause-subscription': {
    rule: cameraChange,
    request: post('/api/pause/cancel-pause-subscription', () => ({ customer_id: id() })),
  },
  // Names the camera on Manage plan and Invoices (decision 111): whoever reaches the camera.
  'GET /api/billing/account/:customerId': {
    rule: read(true),
    request: () => get(`/api/billing/account/${id()}`)(),
  },
  'GET /api/billing/all-payment-methods/:customerId': {
    rule: billing,
    request: () => get(`/api/billing/all-payment-methods/${id()}`)(),
  },
  'GET /api/billing/create-portal-session': {
    rule: billing,
    request: () => get(`/api/billing/create-portal-session?customerId=${id()}`)(),
  },
  // The account's monthly spend alert: the owner's alone (decision 095); no alert stays none.
  'GET /api/account/spend-alert': {
    rule: { ability: 'manageBilling', camera: false },
    request: get('/api/account/spend-alert'),
    otherCustomer: 'ok',
  },
  'PUT /api/account/spend-alert': {
    rule: { ability: 'manageBilling', camera: false },
    request: () => ({
      method: 'PUT' as const,
      url: '/api/account/spend-alert',
      payload: { amountMinor: null },
    }),
    otherCustomer: 'ok',
  },
  // The farm's Billing page: the owner's alone (decision 127); another customer sees their own.
  'GET /api/billing/farm': {
    rule: { ability: 'manageBilling', camera: false },
    request: get('/api/billing/farm'),
    otherCustomer: 'ok',
  },
  'GET /api/billing/farm/invoices.csv': {
    rule: { ability: 'manageBilling', camera: false },
    request: get('/api/billing/farm/invoices.csv'),
    otherCustomer: 'ok',
  },
  'GET /api/billing/farm/details': {
    rule: { ability: 'manageBilling', camera: false },
    request: get('/api/billing/farm/details'),
    otherCustomer: 'ok',
  },
  // Not a UK postcode: refused past the checks, nothing saved.
  'PUT /api/billing/farm/details': {
    rule: { ability: 'manageBilling', camera: false },
    request: () => ({
      method: 'PUT' as const,
      url: '/api/billing/farm/details',
      payload: { name: 'Farm', line1: '1 Road', town: 'Town', postcode: 'NOT A POSTCODE' },
    }),
    otherCustomer: 'ok',
  },
  // A total that is not what is due (the owner) or nothing due (another customer): 409, nothing paid.
  'POST /api/billing/farm/pay-all': {
    rule: { ability: 'manageBilling', camera: false },
    request: post('/api/billing/farm/pay-all', () => ({ amount: 1 }), {
      headers: { 'idempotency-key': `matrix-pay-all-${Math.random()}` },
    }),
    otherCustomer: 'ok',
  },
  // Opens an expiring card page and charges nothing; another customer has no camera to add it to.
  'POST /api/billing/farm/card-for-every-camera': {
    rule: { ability: 'manageBilling', camera: false },
    request: post('/api/billing/farm/card-for-every-camera', () => ({})),
    otherCustomer: 409,
  },
  'GET /api/invoices/fetch-invoices/:customerId': {
    rule: billing,
    request: () => get(`/api/invoices/fetch-invoices/${id()}`)(),
  },
  'POST /api/billing/create-customer-secret': {
    // The activation wizard's step for a signed-in customer: a new SIM is the owner's to add.
    rule: { ability: 'activateSims', camera: true },
    request: post('/api/billing/create-customer-secret', () => ({ customerId: id() })),
  },

  // ── Activation ─────────────────────────────────────────────────────────────────────────────
  'POST /api/activation/billing-customer': {
    rule: { ability: 'activateSims', camera: false },
    request: post(
      '/api/activation/billing-customer',
      () => ({ iccid: demoStockIccid('TMYF'), location: 'ie' }),
      { remoteAddress: nextIp() },
    ),
    otherCustomer: 'ok',
  },
  'POST /api/activation/validate': { kind: 'public', why: 'the wizard, before any account' },
  'POST /api/activation/validate-activation-code': { kind: 'public', why: 'the wizard' },
  'POST /api/activation/validate-iccid': { kind: 'public', why: 'the wizard' },
  'POST /api/activation/check-solar-sim': { kind: 'public', why: 'the wizard' },
  'POST /api/activation/checkout': { kind: 'public', why: 'the wizard (a visitor buys)' },
  'GET /api/activation/config': { kind: 'public', why: 'the wizard' },
  'POST /api/activation/log-price-table': { kind: 'public', why: 'the wizard' },
  'GET /api/activation/orders/:orderId': { kind: 'public', why: 'unguessable order reference' },
  'GET /api/activation/pricing-tables/:pricingTableId': { kind: 'public', why: 'price lists' },

  // ── Live view (issue 27): every role that may see the camera; the owner's switch ────────────
  'GET /api/live-view': {
    rule: read(false),
    request: get('/api/live-view'),
    otherCustomer: 'ok',
  },
  'GET /api/live-view/:iccid': {
    rule: read(true),
    request: get(`/api/live-view/${thisIccid}`),
  },
  // Top gate is on Light Streaming: everyone who reaches it is told which plan has live view.
  'POST /api/live-view/:iccid/watch': {
    rule: read(true),
    request: post(`/api/live-view/${thisIccid}/watch`, () => ({})),
  },
  'POST /api/live-view/:iccid/viewers/:viewerId/heartbeat': {
    rule: read(true),
    request: post(
      `/api/live-view/${thisIccid}/viewers/00000000-0000-4000-8000-000000000000/heartbeat`,
      () => ({}),
    ),
  },
  'DELETE /api/live-view/:iccid/viewers/:viewerId': {
    rule: read(true),
    request: () => ({
      method: 'DELETE' as const,
      url: `/api/live-view/${thisIccid}/viewers/00000000-0000-4000-8000-000000000000`,
    }),
  },
  // The owner's alone (decision 154): live view spends the plan's data.
  'PUT /api/live-view/:iccid/setting': {
    rule: billing,
    request: () => ({
      method: 'PUT' as const,
      url: `/api/live-view/${thisIccid}/setting`,
      payload: { isEnabled: true },
    }),
  },
  'GET /api/live-view/play/:token/index.m3u8': {
    kind: 'public',
    why: "the viewer's own unguessable play token (native HLS sends no bearer token)",
  },

  // ── Livestreaming ──────────────────────────────────────────────────────────────────────────
  'GET /api/livestreaming/cameras': {
    rule: read(false),
    request: get('/api/livestreaming/cameras'),
    otherCustomer: 'ok',
  },
  'GET /api/livestreaming/clip': {
    rule: read(true),
    request: get(`/api/livestreaming/clip?camera_id=${thisIccid}&s3_key=livestreams/none.mp4`),
  },
  'POST /api/livestreaming/setup-camera': {
    rule: cameraChange,
    request: post('/api/livestreaming/setup-camera', () => ({
      sim_number: thisIccid,
      ports: [554],
    })),
  },
  'POST /api/livestreaming/configure-rtsp': {
    rule: cameraChange,
    request: post('/api/livestreaming/configure-rtsp', () => ({
      ...clip,
      is_active: true,
      schedule: 'hours=9;days=MONDAY',
    })),
  },
  'POST /api/livestreaming/rtsp-now': {
    rule: cameraChange,
    request: post('/api/livestreaming/rtsp-now', () => clip),
  },
  'POST /api/livestreaming/share-code': {
    rule: cameraChange,
    request: post('/api/livestreaming/share-code', () => ({
      camera_id: thisIccid,
      email_address: 'webmaster@farm-shop.example',
      html_code: '',
    })),
  },
  'POST /api/livestreaming/set-active': {
    rule: cameraChange,
    request: post('/api/livestreaming/set-active', () => ({
      camera_id: thisIccid,
      is_active: true,
    })),
  },
  'GET /api/livestreaming/links': {
    rule: read(true),
    request: get(`/api/livestreaming/links?camera_id=${thisIccid}`),
  },
  'POST /api/livestreaming/links': {
    rule: cameraChange,
    request: post('/api/livestreaming/links', () => ({
      camera_id: thisIccid,
      kind: 'link',
      days: 7,
    })),
  },
  'POST /api/livestreaming/links/revoke': {
    rule: cameraChange,
    request: post('/api/livestreaming/links/revoke', () => ({
      camera_id: thisIccid,
      link_id: '00000000-0000-4000-8000-000000000017',
    })),
  },
  'POST /api/livestreaming/links/reissue': {
    rule: cameraChange,
    request: post('/api/livestreaming/links/reissue', () => ({
      camera_id: thisIccid,
      link_id: '00000000-0000-4000-8000-000000000017',
    })),
  },
  'GET /api/livestreaming/showcase': {
    rule: read(false),
    request: get('/api/livestreaming/showcase'),
    otherCustomer: 'ok',
  },
  'GET /api/livestreaming/demo-camera': {
    rule: read(false),
    request: get('/api/livestreaming/demo-camera'),
    otherCustomer: 'ok',
  },
  'GET /api/livestreaming/livestream-url': {
    kind: 'public',
    why: 'the embed page on a farm website (unguessable public id)',
  },

  // ── The team and the activity log (owner only) ─────────────────────────────────────────────
  'GET /api/activity': {
    rule: { ability: 'viewActivity', camera: false },
    request: get('/api/activity'),
    otherCustomer: 'ok',
  },
  'GET /api/team': {
    rule: { ability: 'manageTeam', camera: false },
    request: get('/api/team'),
    otherCustomer: 'ok',
  },
  'POST /api/team/invite': {
    // The owner's own address: refused with a sentence, so nobody is invited.
    rule: { ability: 'manageTeam', camera: false },
    request: post('/api/team/invite', () => ({
      email: 'demo@example.com',
      role: 'viewer',
      allCameras: true,
      iccids: [],
      accessUntil: null,
    })),
    skip: ['otherCustomer'],
  },
  'POST /api/team/members/:memberId': {
    // The manager of the other camera, given what they have.
    rule: { ability: 'manageTeam', camera: false },
    request: post(`/api/team/members/:memberId`, () => ({
      role: 'manager',
      allCameras: false,
      iccids: [otherIccid],
      accessUntil: null,
    })),
    // Another customer naming the owner's cameras is refused before the member is looked up.
    skip: ['otherCustomer'],
  },
  'POST /api/team/members/:memberId/remove': {
    rule: { ability: 'manageTeam', camera: false },
    request: () => ({
      method: 'POST',
      url: `/api/team/members/${actors.memberIds.removedMember}/remove`,
    }),
    otherCustomer: 404,
  },
  'POST /api/team/members/:memberId/resend-invitation': {
    rule: { ability: 'manageTeam', camera: false },
    request: () => ({
      method: 'POST',
      url: `/api/team/members/${actors.memberIds.managerOfOther}/resend-invitation`,
    }),
    otherCustomer: 404,
  },
  'GET /api/team/me/camera-alerts': {
    rule: read(false),
    request: get('/api/team/me/camera-alerts'),
    otherCustomer: 'ok',
  },
  'PUT /api/team/me/camera-alerts': {
    // Each person's own choice: off for a member who has it off, the owner's stays on.
    rule: read(false),
    request: () => ({
      method: 'PUT' as const,
      url: '/api/team/me/camera-alerts',
      payload: { cameraAlerts: false },
    }),
    otherCustomer: 'ok',
  },
  // Each person's own notifications (decision 122): everyone signed in to the account reaches
  // only their own settings, so every role gets through and acts on itself.
  'GET /api/notifications/settings': {
    rule: read(false),
    request: get('/api/notifications/settings'),
    otherCustomer: 'ok',
  },
  'PUT /api/notifications/settings': {
    rule: read(false),
    request: () => ({
      method: 'PUT' as const,
      url: '/api/notifications/settings',
      payload: {
        choices: [
          {
            kind: 'camera-silence',
            email: true,
            push: false,
            sms: false,
            overridesQuietHours: true,
          },
        ],
        quietHours: null,
      },
    }),
    otherCustomer: 'ok',
  },
  'POST /api/notifications/push-devices': {
    rule: read(false),
    request: post('/api/notifications/push-devices', () => ({
      endpoint: 'https://push.example/matrix-device',
      keys: { p256dh: 'B'.repeat(87), auth: 'a'.repeat(22) },
    })),
    otherCustomer: 'ok',
  },
  'DELETE /api/notifications/push-devices/:deviceId': {
    // Nobody's device: each signed-in person is told it is not one of theirs (the owner's own
    // device kept from a member is tested in notifications.routes.test.ts).
    kind: 'session',
    why: 'each person removes only their own devices',
    request: () => ({
      method: 'DELETE' as const,
      url: '/api/notifications/push-devices/00000000-0000-4000-8000-000000000000',
    }),
    matrix: {
      owner: 404,
      manager: 404,
      managerOfOther: 404,
      viewerOfThis: 404,
      viewerOfOther: 404,
      expiredMember: 401,
      removedMember: 401,
      otherCustomer: 404,
      team: 404,
      admin: 404,
      teamUnscoped: 403,
      adminUnscoped: 403,
      anonymous: 401,
    },
  },
  'POST /api/notifications/phone': {
    rule: read(false),
    // A number each (a number is sent a handful of codes a day).
    request: post('/api/notifications/phone', () => ({ phone: `07700 900${phoneSerial++}` })),
    otherCustomer: 'ok',
  },
  'POST /api/notifications/phone/verify': {
    rule: read(false),
    request: post('/api/notifications/phone/verify', () => ({ code: '000000' })),
    otherCustomer: 'ok',
  },
  'DELETE /api/notifications/phone': {
    rule: read(false),
    request: () => ({ method: 'DELETE' as const, url: '/api/notifications/phone' }),
    otherCustomer: 'ok',
  },
  'POST /api/notifications/test': {
    rule: read(false),
    request: post('/api/notifications/test', () => ({ channel: 'sms' })),
    otherCustomer: 'ok',
  },
  'POST /api/team/accept-invitation': {
    kind: 'public',
    why: 'the e-mailed invitation is the key (no session yet)',
  },

  // ── Sessions and staff ─────────────────────────────────────────────────────────────────────
  'GET /api/auth/user-data': {
    kind: 'session',
    why: 'anyone signed in reads who they are; an ended access is signed out',
    request: get('/api/auth/user-data'),
    matrix: {
      owner: 200,
      manager: 200,
      managerOfOther: 200,
      viewerOfThis: 200,
      viewerOfOther: 200,
      expiredMember: 401,
      removedMember: 401,
      otherCustomer: 200,
      team: 200,
      admin: 200,
      teamUnscoped: 200,
      adminUnscoped: 200,
      anonymous: 401,
    },
  },
  'POST /api/auth/logout': { kind: 'session', why: "ends the caller's own session" },
  'POST /api/auth/request-login': { kind: 'public', why: 'sign-in' },
  'GET /api/auth/login': { kind: 'public', why: 'sign-in (the e-mailed token)' },
  'POST /api/auth/admin-login': { kind: 'public', why: 'staff sign-in' },
  'POST /api/auth/team-login': { kind: 'public', why: 'staff sign-in' },
  'POST /api/auth/staff-set-password': { kind: 'public', why: 'staff sign-in (e-mailed token)' },
  'POST /login-link': { kind: 'public', why: 'sign-in without JavaScript (decision 116)' },
  'GET /login-link': { kind: 'public', why: 'back to the sign-in page' },
  'GET /login-link/page.css': { kind: 'public', why: "the no-JavaScript sign-in page's style" },
  'GET /api/staff/customers': {
    kind: 'staff',
    why: 'staff search customers outside any portal',
    request: get('/api/staff/customers?query=demo'),
    matrix: staffOnly(200),
  },
  'POST /api/staff/customers/:customerId/impersonate': {
    kind: 'staff',
    why: "staff open a customer's portal (audited)",
    request: () => ({
      method: 'POST',
      url: `/api/staff/customers/${actors.ownerId}/impersonate`,
    }),
    matrix: staffOnly(200),
  },

  // ── Public pages and the process ───────────────────────────────────────────────────────────
  'GET /api/ofcom-signal/:postCode': { kind: 'public', why: 'coverage before buying' },
  'GET /api/coverage/source': { kind: 'public', why: 'coverage before buying' },
  'GET /api/healthz': { kind: 'internal', why: 'the load balancer' },
  'GET /api/readyz': { kind: 'internal', why: 'the load balancer' },
  'GET /metrics': { kind: 'internal', why: 'Prometheus (its own protection)' },
  'GET /api/docs': { kind: 'public', why: 'the API document' },
  'GET /api/docs/': { kind: 'public', why: 'the API document' },
  'GET /api/docs/static/index.html': { kind: 'public', why: 'the API document' },
  'GET /api/docs/static/swagger-initializer.js': { kind: 'public', why: 'the API document' },
  'GET /api/docs/*': { kind: 'public', why: 'the API document' },
  'GET /api/docs/json': { kind: 'public', why: 'the API document' },
  'GET /api/docs/yaml': { kind: 'public', why: 'the API document' },
  'GET *': { kind: 'public', why: 'the web app' },
  'GET /embed/livestream-embed.js': { kind: 'public', why: 'the embed page' },
  'GET /embed/livestream-embed.css': { kind: 'public', why: 'the embed page' },
  'GET /embed/:publicId': { kind: 'public', why: 'the embed page (unguessable public id)' },
  'GET /dev/outbox': { kind: 'internal', why: 'development mail viewer (never in production)' },
  'GET /dev/mail': { kind: 'internal', why: 'development mail viewer' },
  'GET /dev/mail.css': { kind: 'internal', why: 'development mail viewer' },
  'GET /dev/mail/:id': { kind: 'internal', why: 'development mail viewer' },
  'POST /dev/cameras/:iccid/data-usage': {
    kind: 'internal',
    why: 'development only, local SIM platform: a camera uses more data, the budget checks run (decision 095)',
  },
  'POST /dev/cameras/:iccid/silence': {
    kind: 'internal',
    why: 'development only, local SIM platform: makes a camera silent (decision 094)',
  },
  'DELETE /dev/cameras/:iccid/silence': {
    kind: 'internal',
    why: 'development only, local SIM platform: a silent camera live again',
  },
  'POST /dev/camera-watch/run': {
    kind: 'internal',
    why: 'development only, local SIM platform: runs the sync and the silence detection',
  },
  'POST /api/stripe/webhook': { kind: 'internal', why: "Stripe's signature" },
  'POST /api/webhooks/twilio/sms-status': {
    kind: 'internal',
    why: "Twilio's X-Twilio-Signature (SMS=twilio only, decision 124)",
  },
  'POST /api/webhooks/twilio/sms-inbound': {
    kind: 'internal',
    why: "Twilio's X-Twilio-Signature (SMS=twilio only): STOP and START replies",
  },
  'GET /dev/sms': { kind: 'internal', why: 'development text-message viewer (SMS=local only)' },
  'GET /dev/sms.json': { kind: 'internal', why: 'development text-message viewer' },
  'POST /dev/sms/reply': {
    kind: 'internal',
    why: 'development only: a reply as if from a phone (STOP, START)',
  },
};

/** The local billing engine's hosted pages: reached by a random session id or a signed link. */
const isHostedPage = (key: string) => / \/billing-engine\//.test(key);

const isCustomerRoute = (row: Row): row is CustomerRoute => 'rule' in row;

function routerKeys(): string[] {
  return listRoutes(context.app).map(({ path, methods }) => {
    const main = methods.find((method) => method !== 'HEAD' && method !== 'OPTIONS') ?? 'GET';
    return `${main} ${path}`;
  });
}

describe('who may call each endpoint', () => {
  it('has a row for every route the app serves', () => {
    const missing = routerKeys().filter((key) => !(key in routes) && !isHostedPage(key));
    expect(missing, 'routes nobody has said who may call').toEqual([]);
  });

  it('answers every customer endpoint by role and cameras, leaking nothing', async () => {
    const served = new Set(routerKeys());
    const checked: string[] = [];
    for (const [key, row] of Object.entries(routes)) {
      // Rows for routes a change has not added yet (the team screens) wait for them.
      if (!served.has(key)) continue;
      if (isCustomerRoute(row)) {
        const matrix = matrixOf(row.rule, row.otherCustomer);
        for (const name of row.skip ?? []) delete matrix[name];
        const request = () => {
          const options = row.request();
          const memberUrl = options.url as string;
          return memberUrl.includes(':memberId')
            ? { ...options, url: memberUrl.replace(':memberId', actors.memberIds.managerOfOther) }
            : options;
        };
        await expectAccessMatrix(context, actors, request, matrix, key);
        checked.push(key);
      } else if (row.matrix && row.request) {
        await expectAccessMatrix(context, actors, row.request, row.matrix, key);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(28);
  });
});

describe('what each role is told', () => {
  it('refuses a change with a sentence saying why, and a camera not theirs as not found', async () => {
    const rename = (headers: Record<string, string>, iccid: string) =>
      context.app.inject({
        method: 'POST',
        url: '/api/cameras/update-nickname',
        headers,
        payload: { simIccid: iccid, nickname: 'Mine now' },
      });
    expect((await rename(actors.headers.viewerOfThis!, thisIccid)).json()).toEqual({
      code: 'FORBIDDEN',
      message: notAllowedMessages.manageCameras,
    });
    expect((await rename(actors.headers.managerOfOther!, thisIccid)).json()).toEqual({
      code: 'NOT_FOUND',
      message: 'Camera not found',
    });
    const invoices = await context.app.inject({
      method: 'GET',
      url: `/api/invoices/fetch-invoices/${id()}`,
      headers: actors.headers.manager,
    });
    expect(invoices.json().message).toBe(notAllowedMessages.manageBilling);
  });

  it("lists a viewer's cameras only, and offers them nothing they may not do", async () => {
    const plans = async (headers: Record<string, string>) =>
      (
        await context.app.inject({ method: 'GET', url: '/api/cameras/plansV2', headers })
      ).json<PlansResponse>();
    const owner = await plans(actors.headers.owner);
    const viewer = await plans(actors.headers.viewerOfThis!);
    expect(viewer.cameras.map((camera) => camera.SIM_ICCID)).toEqual([thisIccid]);
    const ownersCard = owner.cameras.find((camera) => camera.SIM_ICCID === thisIccid)!;
    expect(ownersCard).toMatchObject({ canPause: true, canSwitch: true });
    expect(viewer.cameras[0]).toEqual({
      ...ownersCard,
      canLivestream: false,
      // A livestream set up already is still opened (code, links); setting one up is not offered.
      livestreamAction: ownersCard.livestreamAction === 'manage' ? 'manage' : null,
      canPause: false,
      pauseReason: notAllowedMessages.manageCameras,
      canCancelPause: false,
      canSwitch: false,
      switchReason: notAllowedMessages.manageCameras,
      canManagePlan: false,
      canPayNow: false,
      canRenew: false,
    });
    // The summary is of the viewer's camera, not the farm's.
    expect(viewer.overallSummary.totalUsageGB).toBe(ownersCard.dataUsageGB);
    expect(viewer.overallSummary.countedPlans).toBe(1);
    // A manager of all cameras sees the owner's cards as they are, except an overdue camera's
    // sentence about the owner's card and its Pay now: only the owner can pay (decisions 141, 170).
    expect(await plans(actors.headers.manager!)).toEqual({
      ...owner,
      cameras: owner.cameras.map((camera) =>
        camera.unpaid
          ? {
              ...camera,
              canPayNow: false,
              unpaid: { ...camera.unpaid, sentence: 'Only the account owner can pay it.' },
            }
          : camera,
      ),
    });
    expect(owner.cameras.some((camera) => camera.unpaid && camera.canPayNow)).toBe(true);

    const livestreams = await context.app.inject({
      method: 'GET',
      url: '/api/livestreaming/cameras',
      headers: actors.headers.viewerOfOther!,
    });
    expect(
      livestreams.json<{ cameras: { SIM_ICCID: string }[] }>().cameras.map((c) => c.SIM_ICCID),
    ).toEqual(expect.not.arrayContaining([thisIccid]));
  });
});
