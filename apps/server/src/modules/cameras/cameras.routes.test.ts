import type { Camera, PlansResponse } from '@farmcam/contract';
import { brotliDecompressSync } from 'node:zlib';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.ts';
import { auditLog, cameraSilences, livestreams, paymentMethods, sims } from '../../db/schema.ts';
import { insertCard } from '@farmcam/billing-engine';
import { demoIccid, seedDemoData, demoStockIccid } from '../../seed/demo.ts';
import {
  addMembers,
  createActors,
  expectOwnerOnly,
  type Actors,
} from '../../../test/helpers/authorization.ts';
import { withSimChanged } from '../../../test/helpers/sim-change.ts';
import {
  createTestContext,
  signInCustomer,
  type TestContext,
} from '../../../test/helpers/test-app.ts';

let context: TestContext;
let actors: Actors;
beforeAll(async () => {
  context = await createTestContext();
  // The demo cameras attach to the actors' owner (demo@example.com).
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
});
afterAll(() => context.close());

const plans = async (headers = actors.headers.owner) => {
  const response = await context.app.inject({
    method: 'GET',
    url: '/api/cameras/plansV2',
    headers,
  });
  expect(response.statusCode).toBe(200);
  return response.json<PlansResponse>();
};
const cameraOf = (response: PlansResponse, serial: number): Camera =>
  response.cameras.find((camera) => camera.SIM_ICCID === demoIccid(serial))!;

describe('GET /api/cameras/plansV2', () => {
  it('goes out compressed to a browser that accepts it, and whole to one that does not (decision 083)', async () => {
    const compressed = await context.app.inject({
      method: 'GET',
      url: '/api/cameras/plansV2',
      headers: { ...actors.headers.owner, 'accept-encoding': 'gzip, deflate, br, zstd' },
    });
    expect(compressed.statusCode).toBe(200);
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(compressed.headers.vary).toMatch(/accept-encoding/i);
    const whole = await context.app.inject({
      method: 'GET',
      url: '/api/cameras/plansV2',
      headers: actors.headers.owner,
    });
    expect(whole.headers['content-encoding']).toBeUndefined();
    expect(compressed.rawPayload.length).toBeLessThan(whole.rawPayload.length / 3);
    expect(JSON.parse(brotliDecompressSync(compressed.rawPayload).toString())).toEqual(
      whole.json(),
    );
    // Small answers are not worth it.
    const user = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data',
      headers: { ...actors.headers.owner, 'accept-encoding': 'br' },
    });
    expect(user.headers['content-encoding']).toBeUndefined();
  });

  it('lists the demo cameras in the order they were added, in every state of docs/requirements.md#states', async () => {
    const response = await plans();
    expect(
      response.cameras.map((camera) => [
        camera.nicknameInDatabase,
        camera.SubStatus,
        camera.SimStatus,
        camera.labelDashboard,
      ]),
    ).toEqual([
      ['Top gate', 'active', 'active', 'active'],
      ['Lambing shed', 'active', 'active', 'active'],
      ['Farmyard', 'active', 'active', 'active'],
      ['Calving pen', 'active', 'active', 'active'],
      ['Grain store', 'paused', 'paused', 'paused'],
      ['Holiday cottage', 'pause scheduled', 'active', 'pause scheduled'],
      ['Fuel tank', 'past_due', 'active', 'past_due'],
      ['Bottom field', 'overdue', 'active', 'overdue'],
      ['Old dairy', 'canceled', 'terminated', 'terminated'],
      ['Machinery shed', 'canceled', 'active', 'Attention'],
    ]);
  });

  it('gives every field of docs/requirements.md#data for a camera', async () => {
    const response = await plans();
    const topGate = cameraOf(response, 101);
    expect(topGate).toMatchObject({
      SIM_ICCID: demoIccid(101),
      STRIPE_CUSTOMER_ID: expect.stringMatching(/^cus_/),
      isBarred: false,
      stripeSubscription: {
        id: expect.stringMatching(/^sub_/),
        productName: 'Light Streaming',
        interval: 'month',
        pause_collection: null,
        // Monthly plans renew on the 1st: 2026-04-01T00:00Z.
        current_period_end: Date.parse('2026-04-01T00:00:00Z') / 1000,
      },
      statusData: { subscriptionStatus: { status: 'active', pause: null } },
      usage: { planAllowanceGB: 5 },
    });
    expect(cameraOf(response, 102).stripeSubscription).toMatchObject({
      productName: 'Standard Streaming',
      interval: 'year',
    });
  });

  it("names each camera and its plan's tier, so no screen works them out (decision 170)", async () => {
    const response = await plans();
    expect(cameraOf(response, 101)).toMatchObject({ displayName: 'Top gate', tier: 'light' });
    expect(cameraOf(response, 102)).toMatchObject({ tier: 'standard' });
    expect(cameraOf(response, 103)).toMatchObject({ displayName: 'Farmyard', tier: 'heavy' });
    // A camera has a tier exactly when it has a subscription; without a nickname it is named
    // from its SIM.
    for (const camera of response.cameras) {
      expect(camera.tier === null).toBe(camera.stripeSubscription === null);
      expect(camera.displayName).toBe(
        camera.nicknameInDatabase ?? `Camera ${camera.SIM_ICCID.slice(-4)}`,
      );
    }
  });

  it('describes pauses in both spec shapes', async () => {
    const response = await plans();
    // Paused from 2026-03-01 until 2026-05-01; scheduled from 2026-04-01 until 2026-06-01.
    expect(cameraOf(response, 105)).toMatchObject({
      stripeSubscription: {
        pause_collection: { resumes_at: Date.parse('2026-05-01T00:00:00Z') / 1000 },
      },
      statusData: {
        subscriptionStatus: {
          status: 'paused',
          pause: { start_date: '2026-03-01', end_date: '2026-05-01' },
        },
      },
    });
    expect(cameraOf(response, 106)).toMatchObject({
      stripeSubscription: {
        pause_collection: { resumes_at: Date.parse('2026-06-01T00:00:00Z') / 1000 },
      },
      statusData: {
        subscriptionStatus: {
          status: 'active',
          pause: { start_date: '2026-04-01', end_date: '2026-06-01' },
        },
      },
    });
  });

  it("reports this month's usage and the combined plan from the stored daily usage", async () => {
    const rows = await queryRows<{ iccid: string; bytes: number }>(
      context.database.db,
      sql`select sim_iccid as iccid, sum(bytes)::float8 as bytes from daily_usage
          where day >= '2026-03-01' and day <= '2026-03-10' group by sim_iccid`,
    );
    const monthBytes = new Map(rows.map((row) => [row.iccid, Number(row.bytes)]));
    const response = await plans();
    for (const camera of response.cameras) {
      expect(camera.dataUsageGB).toBeCloseTo((monthBytes.get(camera.SIM_ICCID) ?? 0) / 1e9, 3);
    }
    // Counted: the four active plans, the scheduled pause, past due and overdue (not the paused,
    // terminated or unsubscribed ones). Allowances: Light 5, Standard 15, Heavy 50 GB.
    const counted = [101, 102, 103, 104, 106, 107, 108];
    const allowance = [5, 15, 50, 50, 5, 15, 5].reduce((sum, gb) => sum + gb, 0);
    const used = counted.reduce((sum, serial) => sum + (monthBytes.get(demoIccid(serial)) ?? 0), 0);
    expect(response.overallSummary).toEqual({
      overallPercentageLeft: Math.round((100 - (used / (allowance * 1e9)) * 100) * 10) / 10,
      totalUsageGB: Math.round(used / 1e6) / 1000,
      totalAllowanceGB: allowance,
      countedPlans: 7,
      // Left out, and why (decision 143): Grain store paused, Old dairy switched off, Machinery
      // shed without a plan.
      notCounted: { paused: 1, withoutPlan: 1, switchedOff: 1 },
    });
    expect(cameraOf(response, 101).usage).toEqual({
      planAllowanceGB: 5,
      percentOfPlan: Math.round((monthBytes.get(demoIccid(101))! / 5e9) * 1000) / 10,
      forecastMonthEndGB: expect.any(Number),
    });
    // A paused plan is not in force: no share or forecast.
    expect(cameraOf(response, 105).usage).toEqual({
      planAllowanceGB: null,
      percentOfPlan: null,
      forecastMonthEndGB: null,
    });
    expect(cameraOf(response, 110).usage).toEqual({
      planAllowanceGB: null,
      percentOfPlan: null,
      forecastMonthEndGB: null,
    });
  });

  it("gives each card its state and actions, livestreaming by the set-up's own rule (decision 014)", async () => {
    const response = await plans();
    expect(response.supportEmail).toMatch(/@/);
    expect(
      response.cameras.map((camera) => [
        camera.nicknameInDatabase,
        camera.cardState,
        camera.canLivestream,
        camera.canPause,
        camera.canSwitch,
      ]),
    ).toEqual([
      ['Top gate', 'active', false, true, true],
      ['Lambing shed', 'active', false, false, true],
      ['Farmyard', 'active', true, true, true],
      ['Calving pen', 'active', true, false, true],
      ['Grain store', 'paused', false, false, false],
      ['Holiday cottage', 'pause-scheduled', false, false, false],
      ['Fuel tank', 'overdue', false, false, false],
      ['Bottom field', 'overdue', false, false, false],
      ['Old dairy', 'terminated', false, false, false],
      ['Machinery shed', 'no-subscription', false, false, false],
    ]);
    expect(cameraOf(response, 101).switchReason).toBeNull();
    expect(cameraOf(response, 105).switchReason).toBe(
      'This plan is paused. Plans can be switched once it restarts.',
    );
    // Annual plans say why they cannot be paused; other cards have no reason to show.
    expect(cameraOf(response, 104).pauseReason).toMatch(/^Annual plans are paid for the year/);
    expect(cameraOf(response, 101).pauseReason).toBeNull();
    expect(cameraOf(response, 105).pauseReason).toBeNull();
    // The livestream set-up offers exactly the cameras the cards offer it on.
    const livestream = await context.app.inject({
      method: 'GET',
      url: '/api/livestreaming/cameras',
      headers: actors.headers.owner,
    });
    const eligible = livestream.json<{ cameras: { SIM_ICCID: string }[] }>();
    expect(eligible.cameras.map((camera) => camera.SIM_ICCID).sort()).toEqual(
      response.cameras
        .filter((camera) => camera.canLivestream)
        .map((camera) => camera.SIM_ICCID)
        .sort(),
    );
  });

  it('says which filters each camera is in, why it needs attention and how urgent it is (decision 140)', async () => {
    const response = await plans();
    expect(
      response.cameras.map((camera) => [
        camera.nicknameInDatabase,
        camera.findStates,
        camera.attention,
        camera.stateOrder,
      ]),
    ).toEqual([
      ['Top gate', [], null, 10],
      ['Lambing shed', ['needs-attention', 'silent'], 'Silent: nothing heard for 8 hours', 5],
      ['Farmyard', [], null, 10],
      ['Calving pen', ['livestreaming'], null, 10],
      ['Grain store', ['paused'], null, 12],
      ['Holiday cottage', [], null, 11],
      ['Fuel tank', ['needs-attention', 'overdue'], 'Bill overdue: pay it to keep the plan', 1],
      ['Bottom field', ['needs-attention', 'overdue'], 'Bill overdue: pay it to keep the plan', 1],
      ['Old dairy', [], null, 13],
      ['Machinery shed', ['needs-attention', 'no-plan'], 'No plan: renew to keep it streaming', 3],
    ]);
    // A livestream switched on puts its camera under "Livestreaming"; a silent one under both
    // "Silent" and "Needs attention".
    await context.database.db
      .insert(livestreams)
      .values({ simIccid: demoIccid(103), publicId: 'find-test-stream', isActive: true });
    await context.database.db.insert(cameraSilences).values({
      simIccid: demoIccid(101),
      silentSince: new Date(context.clock.now().getTime() - 7 * 3_600_000),
    });
    try {
      const after = await plans();
      expect(cameraOf(after, 103)).toMatchObject({
        findStates: ['livestreaming'],
        isLivestreaming: true,
        attention: null,
      });
      expect(cameraOf(after, 101)).toMatchObject({
        findStates: ['needs-attention', 'silent'],
        attention: 'Silent: nothing heard for 7 hours',
        stateOrder: 5,
      });
    } finally {
      await context.database.db.delete(livestreams).where(eq(livestreams.simIccid, demoIccid(103)));
      await context.database.db
        .delete(cameraSilences)
        .where(eq(cameraSilences.simIccid, demoIccid(101)));
    }
  });

  it("says why an overdue camera's bill is unpaid, with the amount and date (decision 113)", async () => {
    const response = await plans();
    const year = context.clock.now().getUTCFullYear() - 1;
    expect(cameraOf(response, 107).unpaid).toMatchObject({
      amountDue: 2000,
      currency: 'gbp',
      cause: 'card_expired',
      summary: expect.stringMatching(/^£20\.00 unpaid since \d{1,2} \w+ \d{4}$/),
      sentence: `Your card ending 4242 expired in March ${year}: update it to pay £20.00.`,
    });
    expect(cameraOf(response, 108).unpaid).toMatchObject({
      amountDue: 1200,
      cause: 'card_declined',
      sentence: expect.stringMatching(
        /^Your card ending 0341 was declined on \d{1,2} \w+ \d{4}: update it to pay £12\.00\.$/,
      ),
    });
    expect(cameraOf(response, 108).unpaid!.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const serial of [101, 105, 106, 109, 110])
      expect(cameraOf(response, serial).unpaid).toBeNull();

    // A card saved since changes the sentence at once: the cached list hears of it.
    const [sim] = await context.database.db
      .select()
      .from(sims)
      .where(eq(sims.iccid, demoIccid(107)));
    const card = await insertCard(context.database.db, {
      billingCustomerId: sim!.billingCustomerId!,
      brand: 'mastercard',
      last4: '4444',
      expMonth: 9,
      expYear: year + 5,
      makeDefault: true,
      createdAt: context.clock.now(),
    });
    try {
      await expect
        .poll(async () => cameraOf(await plans(), 107).unpaid)
        .toMatchObject({
          cause: 'not_collected',
          sentence: '£20.00 is still to pay: pay it now with your card ending 4444.',
        });
    } finally {
      await context.database.db.delete(paymentMethods).where(eq(paymentMethods.id, card.id));
    }
  });

  it("shows members what is unpaid and since when, but not the owner's card (decision 141)", async () => {
    const withMembers = await addMembers(context, actors, {
      thisIccid: demoIccid(107),
      otherIccid: demoIccid(108),
    });
    const owner = cameraOf(await plans(), 107).unpaid!;
    expect(owner.sentence).toMatch(/card ending/);
    for (const member of ['manager', 'viewerOfThis'] as const) {
      const unpaid = cameraOf(await plans(withMembers.headers[member]), 107).unpaid!;
      expect(unpaid).toEqual({ ...owner, sentence: 'Only the account owner can pay it.' });
    }
    // Staff in the owner's portal see what the owner sees.
    expect(cameraOf(await plans(actors.headers.team), 107).unpaid).toEqual(owner);
  });

  it('says which of Pay now, Cancel Scheduled Pause and Renew each card offers, by role (decision 170)', async () => {
    const offers = (response: PlansResponse) =>
      response.cameras
        .filter((camera) => camera.canPayNow || camera.canCancelPause || camera.canRenew)
        .map((camera) => [
          camera.nicknameInDatabase,
          camera.canPayNow,
          camera.canCancelPause,
          camera.canRenew,
        ]);
    // The owner: overdue cameras are paid, the scheduled pause cancelled, the camera without a
    // plan renewed; the switched-off SIM has nothing of these.
    expect(offers(await plans())).toEqual([
      ['Holiday cottage', false, true, false],
      ['Fuel tank', true, false, false],
      ['Bottom field', true, false, false],
      ['Machinery shed', false, false, true],
    ]);
    expect(offers(await plans(actors.headers.team))).toEqual(offers(await plans()));
    const withMembers = await addMembers(context, actors, {
      thisIccid: demoIccid(106),
      otherIccid: demoIccid(108),
    });
    // A manager changes cameras but pays nothing; a viewer does neither.
    expect(offers(await plans(withMembers.headers.manager))).toEqual([
      ['Holiday cottage', false, true, false],
      ['Machinery shed', false, false, true],
    ]);
    expect(offers(await plans(withMembers.headers.viewerOfThis))).toEqual([]);
  });

  it('asks a running plan on a terminated SIM for attention and never offers livestreaming', async () => {
    await withSimChanged(context, demoIccid(103), { state: 'terminated' }, async () => {
      const card = cameraOf(await plans(), 103);
      expect(card).toMatchObject({
        SubStatus: 'active',
        SimStatus: 'terminated',
        labelDashboard: 'Attention',
        cardState: 'attention',
        canLivestream: false,
        canPause: false,
      });
    });
  });

  it("refuses a plan switch during a scheduled pause with the card's own reason (decision 081)", async () => {
    const card = cameraOf(await plans(), 106);
    expect(card).toMatchObject({
      cardState: 'pause-scheduled',
      canSwitch: false,
      switchReason: 'Cancel the scheduled pause before switching plan.',
    });
    const billingId = card.STRIPE_CUSTOMER_ID!;
    const eligible = await context.app.inject({
      method: 'GET',
      url: `/api/subscriptions/fetch-eligible-plans/${billingId}`,
      headers: actors.headers.owner,
    });
    expect(eligible.json()).toMatchObject({
      subscription_status: 'active',
      can_switch: false,
      switch_refusal: card.switchReason,
    });
    const other = eligible
      .json<{ eligible_plans: { id: string; subscribed: boolean }[] }>()
      .eligible_plans.find((plan) => !plan.subscribed)!;
    const switched = await context.app.inject({
      method: 'POST',
      url: '/api/subscriptions/change-plan',
      headers: actors.headers.owner,
      payload: { customerId: billingId, newPlanId: other.id },
    });
    expect(switched.statusCode).toBe(409);
    expect(switched.json().message).toBe(card.switchReason);
  });

  it('never offers livestreaming on a barred Heavy camera (the set-up refuses it)', async () => {
    const farmyard = demoIccid(103);
    expect(cameraOf(await plans(), 103).canLivestream).toBe(true);
    await withSimChanged(context, farmyard, { isBarred: true }, async () => {
      const card = cameraOf(await plans(), 103);
      expect(card).toMatchObject({ labelDashboard: 'Barred', canLivestream: false });
      const livestream = await context.app.inject({
        method: 'GET',
        url: '/api/livestreaming/cameras',
        headers: actors.headers.owner,
      });
      expect(
        livestream.json<{ cameras: { SIM_ICCID: string }[] }>().cameras.map((c) => c.SIM_ICCID),
      ).not.toContain(farmyard);
    });
  });

  it('counts "today" as the UK calendar day: a pause starts at midnight in London (decision 081)', async () => {
    // 23:30 UTC on 31 March is 00:30 on 1 April in London (British Summer Time).
    context.clock.set('2026-03-31T23:30:00Z');
    try {
      const token = await signInCustomer(context, 'demo@example.com');
      const card = cameraOf(await plans({ authorization: `Bearer ${token}` }), 106);
      expect(card.SubStatus).toBe('paused');
      expect(card.canSwitch).toBe(false);
    } finally {
      context.clock.set('2026-03-10T12:00:00Z');
    }
  });

  it('turns a scheduled pause into paused when its day comes (business time)', async () => {
    context.clock.set('2026-04-01T00:30:00Z');
    try {
      // Three weeks on, the owner's session has expired: sign in again.
      const token = await signInCustomer(context, 'demo@example.com');
      const april = await plans({ authorization: `Bearer ${token}` });
      expect(cameraOf(april, 106).SubStatus).toBe('paused');
      // A new month: nothing used yet.
      expect(cameraOf(april, 101).dataUsageGB).toBe(0);
    } finally {
      context.clock.set('2026-03-10T12:00:00Z');
    }
  });

  it('shows each customer only their own cameras', async () => {
    const response = await plans(actors.headers.otherCustomer);
    expect(response.cameras).toEqual([]);
    expect(response.overallSummary.overallPercentageLeft).toBe(100);
    const secondToken = await signInCustomer(context, 'second@example.com');
    const second = await plans({ authorization: `Bearer ${secondToken}` });
    expect(second.cameras.map((camera) => camera.SIM_ICCID)).toEqual([demoIccid(201)]);
  });

  it('answers the owner and staff in their portal only', async () => {
    await expectOwnerOnly(
      context,
      actors,
      () => ({ method: 'GET', url: '/api/cameras/plansV2' }),
      // Another customer is not refused: they get their own (empty) list.
      { otherCustomerStatus: 200 },
    );
  });

  it('is never kept by a browser or proxy, nor is any other personal answer (decision 014)', async () => {
    for (const url of [
      '/api/cameras/plansV2',
      '/api/auth/user-data',
      `/api/cameras/sim-info/${demoIccid(101)}`,
    ]) {
      const response = await context.app.inject({
        method: 'GET',
        url,
        headers: actors.headers.owner,
      });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'], url).toBe('no-store');
    }
  });
});

describe('GET /api/cameras/sim-info/{iccid}', () => {
  it('gives the SIM information card', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/sim-info/${demoIccid(109)}`,
      headers: actors.headers.owner,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      nickname: 'Old dairy',
      simInfo: {
        connectionDate: expect.stringMatching(/^2025-/),
        isActive: false,
        isBarred: false,
        physicalId: demoIccid(109),
        terminateDate: '2026-01-01T00:00:00.000Z',
        // Words that agree with each other: not active because it was switched off, and when
        // (decision 111).
        state: 'terminated',
        statusWords: {
          currentlyActive: 'No: switched off on 1 January 2026',
          disabledByProvider: 'No: it was switched off when its plan ended',
          note: expect.stringMatching(
            /^This SIM was switched off on 1 January 2026, when its plan ended\. .*activate a new SIM/,
          ),
        },
      },
    });
    const active = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/sim-info/${demoIccid(101)}`,
      headers: actors.headers.owner,
    });
    expect(active.json().simInfo).toMatchObject({
      state: 'active',
      statusWords: { currentlyActive: 'Yes', disabledByProvider: 'No', note: null },
    });
    const paused = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/sim-info/${demoIccid(105)}`,
      headers: actors.headers.owner,
    });
    expect(paused.json().simInfo.statusWords.currentlyActive).toBe('No: paused with its plan');
  });

  it('offers no Manage plan and no alerts to change for a switched-off camera', async () => {
    const plans = await context.app.inject({
      method: 'GET',
      url: '/api/cameras/plansV2',
      headers: actors.headers.owner,
    });
    const cameras = plans.json<PlansResponse>().cameras;
    const oldDairy = cameras.find((camera) => camera.SIM_ICCID === demoIccid(109))!;
    expect(oldDairy).toMatchObject({ canManagePlan: false, terminatedOn: '2026-01-01' });
    const topGate = cameras.find((camera) => camera.SIM_ICCID === demoIccid(101))!;
    expect(topGate).toMatchObject({ canManagePlan: true, terminatedOn: null });

    const alerts = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/alert-settings/${demoIccid(109)}`,
      headers: actors.headers.owner,
    });
    expect(alerts.json()).toMatchObject({
      canChange: false,
      unavailableReason: "This camera's SIM is switched off, so it sends no data and no alerts.",
    });
    const change = await context.app.inject({
      method: 'PUT',
      url: `/api/cameras/alert-settings/${demoIccid(109)}`,
      headers: actors.headers.owner,
      payload: {
        silenceHours: 6,
        dataAlertPercent: 80,
        pauseDataAtAllowance: false,
        noClipHours: null,
      },
    });
    expect(change.statusCode).toBe(409);
    expect(change.json().message).toMatch(/switched off/);
  });

  it('is for the owner only, and refuses bad and stock ICCIDs clearly', async () => {
    await expectOwnerOnly(context, actors, () => ({
      method: 'GET',
      url: `/api/cameras/sim-info/${demoIccid(101)}`,
    }));
    const bad = await context.app.inject({
      method: 'GET',
      url: '/api/cameras/sim-info/12ab',
      headers: actors.headers.owner,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'Enter the SIM number: 19 or 20 digits.',
      field: 'iccid',
    });
    const stock = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/sim-info/${demoStockIccid('KQTX')}`,
      headers: actors.headers.owner,
    });
    expect(stock.statusCode).toBe(404);
  });
});

describe('GET /api/cameras/router-info/{iccid}', () => {
  it('gives the router card for an active SIM', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/router-info/${demoIccid(101)}`,
      headers: actors.headers.owner,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      routerInfo: {
        'Cameras Network Name': 'FARMCAM-101',
        'Network Provider': expect.any(String),
        'Signal Strength': expect.stringMatching(/^(Excellent|Good|Fair)$/),
        'Signal Strength (dBm)': expect.any(Number),
      },
      updatedAt: expect.any(String),
      unavailableReason: null,
    });
  });

  it('has nothing for a paused or barred SIM', async () => {
    const paused = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/router-info/${demoIccid(105)}`,
      headers: actors.headers.owner,
    });
    expect(paused.json()).toEqual({
      routerInfo: null,
      updatedAt: null,
      unavailableReason: expect.stringMatching(/^This SIM is paused/),
    });
    await context.database.db
      .update(sims)
      .set({ isBarred: true })
      .where(eq(sims.iccid, demoIccid(103)));
    try {
      const barred = await context.app.inject({
        method: 'GET',
        url: `/api/cameras/router-info/${demoIccid(103)}`,
        headers: actors.headers.owner,
      });
      // Barred but active: the SIM card says "Currently active: Yes", so the reason is the bar.
      expect(barred.json()).toEqual({
        routerInfo: null,
        updatedAt: null,
        unavailableReason: expect.stringMatching(/^The network provider has disabled this SIM/),
      });
      expect(cameraOf(await plans(), 103).labelDashboard).toBe('Barred');
    } finally {
      await context.database.db
        .update(sims)
        .set({ isBarred: false })
        .where(eq(sims.iccid, demoIccid(103)));
    }
  });

  it('is for the owner only', async () => {
    await expectOwnerOnly(context, actors, () => ({
      method: 'GET',
      url: `/api/cameras/router-info/${demoIccid(102)}`,
    }));
  });
});

describe('POST /api/cameras/update-nickname', () => {
  const rename = (nickname: unknown, headers = actors.headers.owner, iccid = demoIccid(104)) =>
    context.app.inject({
      method: 'POST',
      url: '/api/cameras/update-nickname',
      headers,
      payload: { simIccid: iccid, nickname },
    });

  it('trims the name, saves it and audits who did it', async () => {
    const response = await rename('   North   paddock  ');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      message: 'Camera name updated successfully',
      nickname: 'North paddock',
    });
    expect(cameraOf(await plans(), 104).nicknameInDatabase).toBe('North paddock');

    await rename('Calving pen', actors.headers.team);
    const entries = await context.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'camera.rename'), eq(auditLog.subjectId, demoIccid(104))));
    expect(entries.map((entry) => [entry.actorType, entry.details])).toEqual([
      ['customer', { from: 'Calving pen', to: 'North paddock' }],
      ['staff', { from: 'North paddock', to: 'Calving pen' }],
    ]);
    expect(entries[1]!.onBehalfOfCustomerId).toBe(actors.ownerId);
  });

  it('keeps markup as plain text (the page renders it as text)', async () => {
    const name = '<img src=x onerror=alert(1)>';
    expect((await rename(name, actors.headers.owner, demoIccid(103))).statusCode).toBe(200);
    expect(cameraOf(await plans(), 103).nicknameInDatabase).toBe(name);
    await rename('Farmyard', actors.headers.owner, demoIccid(103));
  });

  it.each([
    ['', 'Enter a camera name'],
    ['    ', 'Enter a camera name'],
    ['x'.repeat(41), 'A camera name has at most 40 characters'],
    ['Bad\u0007name', 'A camera name cannot contain control characters'],
  ])('refuses %j with a clear message', async (nickname, message) => {
    const response = await rename(nickname);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'VALIDATION_FAILED',
      message: `${message}.`,
      field: 'nickname',
    });
  });

  it('counts characters, not bytes: 40 emoji fit', async () => {
    expect((await rename('🐄'.repeat(40))).statusCode).toBe(200);
    await rename('Calving pen');
  });

  it("refuses another customer's camera, bad ICCIDs and missing fields", async () => {
    await expectOwnerOnly(context, actors, () => ({
      method: 'POST',
      url: '/api/cameras/update-nickname',
      payload: { simIccid: demoIccid(104), nickname: 'Calving pen' },
    }));
    expect((await rename('Mine now', actors.headers.otherCustomer)).statusCode).toBe(404);
    expect(cameraOf(await plans(), 104).nicknameInDatabase).toBe('Calving pen');
    expect((await rename('Name', actors.headers.owner, '123')).statusCode).toBe(400);
    expect((await rename(undefined)).statusCode).toBe(400);
  });
});
