/**
 * Subscriptions, payment methods, pause and invoices for one camera's billing customer
 * (docs/requirements.md#screens, #states, #api), in parts (decision 086) that the composition
 * root builds one by one and hands each to the routes that use it (decision 162): plan changes
 * (plan-change.service.ts), pauses (pause.service.ts), renewal of an ended subscription
 * (renewal.service.ts), the SIM's lifecycle and the reaction to billing events
 * (sim-lifecycle.service.ts), the cards, invoices and billing portal (billing-account.service.ts)
 * and the farm's Billing page (farm-billing.service.ts). Routes have already checked that the
 * billing customer belongs to the caller; the parts apply the rules and talk to the billing port.
 * Reads come from our tables only; writes go to the provider (with an idempotency key) under a
 * per-subscription lease.
 *
 * What the parts share, here: their dependencies, the UK day they count pauses and plan rules by
 * (docs/decisions/081), the audit of a customer's or a staff member's billing action, the
 * camera's current subscription, and billing failures in the words the customer sees.
 */
import type { Database } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import { auditActorOf, writeAudit } from '../../lib/audit.ts';
import type { Access } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import { requireReachableBillingCustomer } from '../ownership/ownership.ts';
import { BillingError, type BillingProvider } from '@farmcam/billing';
import type { ConnectivityPlatform } from '../../providers/connectivity/connectivity.ts';
import type { Notifier } from '../notifications/notifier.ts';
import { billingRepository } from './billing.repository.ts';
import { businessDay } from './pause-rules.ts';

export interface BillingServiceDeps {
  db: Database;
  billing: BillingProvider;
  connectivity: ConnectivityPlatform;
  /** For the e-mails of failed renewal payments (local engine). */
  /** Tells the owner of failed payments and the end of dunning (decision 122). */
  notifier?: Notifier;
  publicUrl: string;
  /** Named in the e-mail that a SIM was switched off (the way back is through support). */
  supportEmail?: string;
  log: {
    warn(object: object, message: string): void;
    error(object: object, message: string): void;
  };
}

/** Who asks about a billing account: the customer of their session and their reach (decision 091). */
export interface BillingCaller {
  customerId: string;
  access: Access;
}

/** Who is acting, for the audit log: the person, from where. */
export interface Actor {
  principal: Principal;
  ip: string;
  userAgent?: string | undefined;
}

/** The camera a billing action is about: its billing account and its SIM (null: not known here). */
export interface BillingTarget {
  billingCustomerId: string;
  iccid: string | null;
}

export type BillingServiceContext = ReturnType<typeof createBillingServiceContext>;

export function createBillingServiceContext(deps: BillingServiceDeps) {
  const { db, billing } = deps;
  return {
    ...deps,
    /**
     * Every call about one billing account starts here: it must be the caller's and belong to
     * cameras they may reach, or it answers 404 exactly like one that does not exist, before any
     * work (decision 091).
     */
    async requireReachable(caller: BillingCaller, billingCustomerId: string): Promise<void> {
      await requireReachableBillingCustomer(
        db,
        caller.access,
        caller.customerId,
        billingCustomerId,
      );
    },

    /** Today in the UK, by the billing provider's clock. */
    today: () => businessDay(billing.now()),

    /**
     * Records a person's billing action on the account's activity log (docs/decisions/092),
     * about the camera's SIM; the details also name the billing account.
     */
    async audit(actor: Actor, action: string, target: BillingTarget, details: object) {
      await writeAudit(db, {
        ...auditActorOf(actor.principal),
        action,
        // Without the SIM, the billing account names the camera (activity.repository.ts finds it).
        ...(target.iccid
          ? { subjectType: 'sim', subjectId: target.iccid }
          : { subjectType: 'billing_customer', subjectId: target.billingCustomerId }),
        details: { ...details, billingCustomerId: target.billingCustomerId },
        ip: actor.ip,
        userAgent: actor.userAgent ?? null,
      });
    },

    /** The billing customer's current subscription, or 404. */
    async requireSubscription(billingCustomerId: string) {
      const current = await billingRepository.currentSubscription(db, billingCustomerId);
      if (!current) throw new AppError('NOT_FOUND', 'No subscription found for this camera');
      return current;
    },
  };
}

/** A billing failure in the words the customer sees, with the right status. */
function toAppError(error: unknown): unknown {
  if (!(error instanceof BillingError)) return error;
  if (error.kind === 'card_declined') return new AppError('UNPROCESSABLE', error.message);
  if (error.kind === 'invalid') return new AppError('CONFLICT', error.message);
  return new AppError('PROVIDER_UNAVAILABLE', error.message);
}

export async function mapBillingErrors<Result>(work: () => Promise<Result>): Promise<Result> {
  try {
    return await work();
  } catch (error) {
    throw toAppError(error);
  }
}
