import type { Camera, PlansResponse, RouterInfoResponse, SimInfoResponse } from '@farmcam/contract';
import { cameraNameOf } from '@farmcam/contract/rules';
import type { Database } from '../../db/client.ts';
import {
  businessDay,
  epochSecondsOfDay,
  isoDay,
  monthStart,
  nextMonthStart,
} from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { auditActorOf, writeAudit } from '../../lib/audit.ts';
import { notFound } from '../../errors.ts';
import type { Principal } from '../auth/principal.ts';
import { type Access, hasAbility, notAllowedMessages, withinCameras } from '../auth/access.ts';
import { requireOwnedSim } from '../ownership/ownership.ts';
import { pauseRefusal, pauseStateOn } from '../billing/pause-rules.ts';
import { managePlanRefusal, switchRefusal } from '../billing/plan-switch-rule.ts';
import { livestreamEligibility } from './livestream-eligibility.ts';
import { describeUnpaid, invoiceDueDay } from '@farmcam/billing/bill-words';
import {
  bytesPerGb,
  dataCapCostNote,
  deriveCardState,
  deriveDashboardLabel,
  deriveSimStatus,
  deriveSubStatus,
  findFacts,
  isCountedPlan,
  overallPercentageLeft,
  roundTo,
  simStatusWords,
  usageFigures,
} from './camera-state.ts';
import { camerasRepository, type CameraRow, type UnpaidRow } from './cameras.repository.ts';
import type { ReadCache } from './plans-cache.ts';

export interface CamerasServiceDependencies {
  db: Database;
  clock: Clock;
  plansCache: ReadCache<PlansResponse>;
  /** Where the cards send a farmer who needs help (SUPPORT_EMAIL). */
  supportEmail: string;
}

export type CamerasService = ReturnType<typeof createCamerasService>;

/**
 * The cards offer only what the person's role may do (decision 091): without manageCameras
 * (a viewer) no pause, switch or livestream set-up, and the card says why in place of the button.
 * The role's rule is hasAbility's (auth/access.ts), the same one the routes enforce.
 */
export function withRoleActions(plans: PlansResponse, access: Access): PlansResponse {
  if (hasAbility(access, 'manageCameras')) return plans;
  const reason = notAllowedMessages.manageCameras;
  return {
    ...plans,
    cameras: plans.cameras.map((camera) => ({
      ...camera,
      canLivestream: false,
      // A member who may not change cameras still opens a livestream's page (code, links).
      livestreamAction: camera.livestreamAction === 'manage' ? 'manage' : null,
      canPause: false,
      pauseReason: camera.cardState === 'active' ? reason : camera.pauseReason,
      canCancelPause: false,
      canSwitch: false,
      switchReason: reason,
      canManagePlan: false,
      canRenew: false,
    })),
  };
}

/**
 * A member sees cameras the owner pays for (decision 141): an overdue camera says what is unpaid
 * and since when, but not the owner's card, and that only the owner can pay it; no Pay now.
 */
export function withMemberBillingWords(plans: PlansResponse, access: Access): PlansResponse {
  if (hasAbility(access, 'manageBilling')) return plans;
  if (!plans.cameras.some((camera) => camera.unpaid || camera.canPayNow)) return plans;
  return {
    ...plans,
    cameras: plans.cameras.map((camera) =>
      camera.unpaid || camera.canPayNow
        ? {
            ...camera,
            canPayNow: false,
            unpaid: camera.unpaid && {
              ...camera.unpaid,
              sentence: 'Only the account owner can pay it.',
            },
          }
        : camera,
    ),
  };
}

/** An overdue camera's unpaid bills in the farmer's words (bill-words.ts, decision 113). */
function unpaidBillsOf(unpaid: UnpaidRow, now: Date): NonNullable<Camera['unpaid']> {
  const raisedAt = new Date(unpaid.raisedAtMs);
  const words = describeUnpaid(
    {
      amountDue: unpaid.amountDue,
      currency: unpaid.currency,
      raisedAt,
      attemptCount: unpaid.attemptCount,
      cards: unpaid.cards.map((card) => ({ ...card, createdAt: new Date(card.createdAtMs) })),
    },
    now,
  );
  return {
    amountDue: unpaid.amountDue,
    currency: unpaid.currency,
    dueDate: invoiceDueDay({ createdAt: raisedAt }),
    ...words,
  };
}

export function createCamerasService({
  db,
  clock,
  plansCache,
  supportEmail,
}: CamerasServiceDependencies) {
  function toCamera(
    row: CameraRow,
    now: Date,
    today: string,
    month: { start: Date; next: Date },
  ): { camera: Camera; countedAllowanceBytes: number; countedBytes: number } {
    const subscription =
      row.subscription_id && row.status
        ? {
            status: row.status,
            pauseStartsOn: row.pause_starts_on,
            pauseResumesOn: row.pause_resumes_on,
          }
        : null;
    const subStatus = deriveSubStatus(subscription, today);
    const simStatus = deriveSimStatus(row.state);
    const monthBytes = Number(row.month_bytes);
    const allowanceGb = row.data_allowance_gb === null ? null : Number(row.data_allowance_gb);
    // A pause that is over (resume date reached) is history, not state.
    const isPauseCurrent = subscription !== null && pauseStateOn(subscription, today) !== null;
    const isCounted = allowanceGb !== null && isCountedPlan(subStatus, simStatus);
    const isMetering =
      simStatus === 'active' &&
      !row.is_barred &&
      subStatus !== 'paused' &&
      subStatus !== 'canceled';

    const cardState = deriveCardState(subStatus, simStatus);
    const terminatedAt = row.terminated_at_ms === null ? null : new Date(row.terminated_at_ms);
    const simFacts = { state: row.state, terminatedAt };
    // The set-up's own rule (docs/decisions/014): the card never offers what the set-up refuses.
    const livestream = livestreamEligibility({
      productName: row.product_name,
      subStatus,
      simState: row.state,
      isBarred: row.is_barred,
    });
    const switchRefused = switchRefusal(subscription, today);
    const pauseRefused =
      cardState === 'active' && row.status
        ? pauseRefusal({ status: row.status, interval: row.interval ?? 'month' })
        : null;

    const hasBillingAccount = row.billing_customer_id !== null;
    const silenceHours =
      row.silent_since_ms === null
        ? null
        : Math.floor((now.getTime() - Number(row.silent_since_ms)) / 3_600_000);
    const camera: Camera = {
      SIM_ICCID: row.iccid,
      nicknameInDatabase: row.nickname,
      displayName: cameraNameOf(row.nickname, row.iccid),
      SubStatus: subStatus,
      SimStatus: simStatus,
      labelDashboard: deriveDashboardLabel(subStatus, simStatus, row.is_barred),
      dataUsageGB: roundTo(monthBytes / bytesPerGb, 3),
      STRIPE_CUSTOMER_ID: row.billing_customer_id,
      stripeSubscription: row.subscription_id
        ? {
            id: row.subscription_id,
            productName: row.product_name,
            interval: row.interval ?? 'month',
            pause_collection:
              isPauseCurrent && row.pause_resumes_on
                ? { resumes_at: epochSecondsOfDay(row.pause_resumes_on) }
                : null,
            current_period_end: Math.round(Number(row.current_period_end_s ?? 0)),
          }
        : null,
      tier: row.subscription_id ? row.tier : null,
      statusData: {
        subscriptionStatus: {
          status: row.status,
          pause:
            isPauseCurrent && row.pause_starts_on
              ? { start_date: row.pause_starts_on, end_date: row.pause_resumes_on }
              : null,
        },
      },
      isBarred: row.is_barred,
      usage: usageFigures({
        monthBytes,
        // Share and forecast only for a plan in force this month (not paused, ended or absent).
        allowanceGb: isCounted ? allowanceGb : null,
        isMetering,
        now,
        monthStart: month.start,
        nextMonthStart: month.next,
        activatedAt: row.activated_at_ms === null ? null : new Date(Number(row.activated_at_ms)),
      }),
      cardState,
      canLivestream: livestream.isEligible,
      // A camera that already streams is managed (schedule, links, code), never set up again over
      // a working stream (decision 121).
      livestreamAction: !livestream.isEligible ? null : row.has_livestream ? 'manage' : 'set-up',
      // Only a running plan is offered Pause; a scheduled pause is moved from its own modal.
      canPause: cardState === 'active' && pauseRefused === null,
      pauseReason: pauseRefused,
      // A scheduled pause is cancelled (or moved) from the card (docs/requirements.md#states).
      canCancelPause: cardState === 'pause-scheduled' && hasBillingAccount,
      // The switch's own rule: never offered while it would be refused (decision 081).
      canSwitch: switchRefused === null,
      switchReason: switchRefused,
      // Manage plan has nothing for a SIM that is switched off (decision 111).
      canManagePlan: hasBillingAccount && managePlanRefusal(simFacts) === null,
      // Pay now pays the overdue bills through the camera's billing account (decision 113).
      canPayNow: cardState === 'overdue' && hasBillingAccount,
      // A live SIM without a plan is renewed on the pricing page of its billing account.
      canRenew: cardState === 'no-subscription' && hasBillingAccount,
      terminatedOn: terminatedAt === null ? null : businessDay(terminatedAt),
      silence:
        row.silent_since_ms === null || silenceHours === null
          ? null
          : { since: new Date(Number(row.silent_since_ms)).toISOString(), hours: silenceHours },
      dataCap:
        row.capped_at_ms === null
          ? null
          : {
              stoppedAt: new Date(Number(row.capped_at_ms)).toISOString(),
              canResume: row.state === 'active',
              costNote: dataCapCostNote(row.product_name, row.data_allowance_gb),
            },
      unpaid: cardState === 'overdue' && row.unpaid ? unpaidBillsOf(row.unpaid, now) : null,
      // Which filters it is in and how urgent it is: one rule (decision 140).
      ...findFacts({
        cardState,
        isBarred: row.is_barred,
        silenceHours,
        isDataCapped: row.capped_at_ms !== null,
        isLivestreaming: row.is_livestreaming,
      }),
      isLivestreaming: row.is_livestreaming,
    };
    return {
      camera,
      countedAllowanceBytes: isCounted ? (allowanceGb ?? 0) * bytesPerGb : 0,
      countedBytes: isCounted ? monthBytes : 0,
    };
  }

  async function loadPlans(
    customerId: string,
    now: Date,
    access: Access | null = null,
  ): Promise<PlansResponse> {
    // Pause state by the UK day, usage by the UTC month its days are kept in (decision 081).
    const today = businessDay(now);
    // Once per list, not per camera (a thousand cards share them).
    const month = { start: monthStart(now), next: nextMonthStart(now) };
    const allRows = await camerasRepository.listCameras(db, customerId, isoDay(month.start));
    // A member given chosen cameras sees those only, the summary included (decision 091).
    const rows = access ? withinCameras(access, allRows, (row) => row.iccid) : allRows;
    let allowanceBytes = 0;
    let usedBytes = 0;
    let countedPlans = 0;
    const notCounted = { paused: 0, withoutPlan: 0, switchedOff: 0 };
    const cameras = rows.map((row) => {
      const result = toCamera(row, now, today, month);
      if (result.countedAllowanceBytes > 0) countedPlans += 1;
      // Why a camera is left out of the combined figures, for the card's sentence (decision 143).
      else if (result.camera.SimStatus === 'terminated') notCounted.switchedOff += 1;
      else if (result.camera.SubStatus === 'paused') notCounted.paused += 1;
      else notCounted.withoutPlan += 1;
      allowanceBytes += result.countedAllowanceBytes;
      usedBytes += result.countedBytes;
      return result.camera;
    });
    return {
      overallSummary: {
        overallPercentageLeft: overallPercentageLeft(usedBytes, allowanceBytes),
        totalUsageGB: roundTo(usedBytes / bytesPerGb, 3),
        totalAllowanceGB: roundTo(allowanceBytes / bytesPerGb, 3),
        countedPlans,
        notCounted,
      },
      cameras,
      supportEmail,
    };
  }

  return {
    /**
     * The dashboard's camera list with the combined-plan summary (docs/requirements.md#data Plans response), from
     * memory when nothing changed since it was last read (plans-cache.ts).
     */
    listPlans(customerId: string, access: Access): Promise<PlansResponse> {
      const now = clock.now();
      // The cache holds the whole account: a member with chosen cameras has their own list (and
      // summary) computed; members are few. The owner's answer is the cached one as it is, with
      // no step added to the hot path (decision 090).
      const plans = access.allCameras
        ? plansCache.read(customerId, businessDay(now), () => loadPlans(customerId, now))
        : loadPlans(customerId, now, access);
      if (hasAbility(access, 'manageBilling')) return plans;
      return plans.then((list) => withMemberBillingWords(withRoleActions(list, access), access));
    },

    /** docs/requirements.md#data SIM info of the customer's camera (NOT_FOUND when it is not theirs). */
    async getSimInfo(customerId: string, iccid: string): Promise<SimInfoResponse> {
      const sim = await requireOwnedSim(db, customerId, iccid);
      if (sim.state === 'stock') throw notFound('Camera not found');
      const state = deriveSimStatus(sim.state);
      // Only a switched-off SIM's words depend on its plan (docs/decisions/014's 'attention').
      const hasRunningPlan =
        sim.state === 'terminated' &&
        deriveSubStatus(
          (await camerasRepository.currentSubscription(db, iccid)) ?? null,
          businessDay(clock.now()),
        ) !== 'canceled';
      return {
        simInfo: {
          connectionDate: sim.activatedAt?.toISOString() ?? null,
          isActive: sim.state === 'active',
          isBarred: sim.isBarred,
          physicalId: sim.iccid,
          terminateDate: sim.terminatedAt?.toISOString() ?? null,
          state,
          statusWords: simStatusWords({
            state: sim.state,
            isBarred: sim.isBarred,
            terminatedAt: sim.terminatedAt,
            hasRunningPlan,
          }),
        },
        nickname: sim.nickname,
      };
    },

    /**
     * The router's last report, as synced from the SIM platform. None while the SIM is not
     * active or is barred: the platform cannot see a router then (docs/requirements.md#states).
     */
    async getRouterInfo(customerId: string, iccid: string): Promise<RouterInfoResponse> {
      const sim = await requireOwnedSim(db, customerId, iccid);
      // The same facts the SIM card shows, in words that agree with it (decision 014).
      const unavailable = (reason: string) => ({
        routerInfo: null,
        updatedAt: null,
        unavailableReason: reason,
      });
      if (sim.isBarred) {
        return unavailable(
          'The network provider has disabled this SIM, so the router cannot be seen. Please contact support.',
        );
      }
      if (sim.state === 'terminated') {
        return unavailable('This SIM has been terminated, so the router cannot be seen.');
      }
      if (sim.state !== 'active') {
        return unavailable(
          'This SIM is paused, so the router cannot be seen. Router information returns when the plan restarts.',
        );
      }
      const status = await camerasRepository.routerStatus(db, iccid);
      if (!status) return { routerInfo: null, updatedAt: null, unavailableReason: null };
      return {
        routerInfo: {
          'Cameras Network Name': status.networkName,
          'Network Provider': status.networkProvider,
          'Signal Strength': status.signalStrength,
          'Signal Strength (dBm)': status.signalDbm,
        },
        updatedAt: status.updatedAt.toISOString(),
        unavailableReason: null,
      };
    },

    /**
     * Renames the customer's camera (already trimmed and checked by the contract). Audited with
     * who did it, staff included; idempotent (the same name twice changes nothing more).
     */
    async updateNickname(
      principal: Principal,
      customerId: string,
      input: { simIccid: string; nickname: string; ip: string; userAgent?: string | undefined },
    ): Promise<{ success: true; message: string; nickname: string }> {
      const now = clock.now();
      const row = await db.transaction(async (transaction) => {
        const sim = await requireOwnedSim(transaction, customerId, input.simIccid);
        if (sim.state === 'stock') throw notFound('Camera not found');
        const updated = await camerasRepository.updateNickname(
          transaction,
          customerId,
          input.simIccid,
          input.nickname,
          now,
        );
        if (!updated) throw notFound('Camera not found');
        if (sim.nickname !== input.nickname) {
          await writeAudit(transaction, {
            ...auditActorOf(principal),
            action: 'camera.rename',
            subjectType: 'sim',
            subjectId: input.simIccid,
            details: { from: sim.nickname, to: input.nickname },
            ip: input.ip,
            userAgent: input.userAgent ?? null,
          });
        }
        return updated;
      });
      // This process answers the next read at once; other processes hear it from the trigger.
      plansCache.invalidate(customerId);
      return {
        success: true,
        message: 'Camera name updated successfully',
        nickname: row.nickname ?? input.nickname,
      };
    },
  };
}
