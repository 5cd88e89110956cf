/**
 * A camera's billing account as the portal shows it: its cards, its invoices with their lines
 * and credit notes, and the provider's billing portal (or, for an embedded page, a customer
 * secret) where the customer manages them.
 */
import type {
  BillingAccountResponse,
  Invoice,
  InvoicesResponse,
  PaymentMethod,
  PortalPurpose,
} from '@farmcam/contract';
import {
  givenBack,
  invoiceDueDay,
  invoiceStatusDetail,
  invoiceStatusLabel,
} from '@farmcam/billing/bill-words';
import { isCardExpired } from '@farmcam/billing/card-rules';
import { formatMoney } from '@farmcam/billing/money';
import {
  mapBillingErrors,
  type Actor,
  type BillingServiceContext,
  type BillingCaller,
} from './billing-service-context.ts';
import { billingRepository } from './billing.repository.ts';
import { managePlanRefusal } from './plan-switch-rule.ts';

export function createBillingAccountService(context: BillingServiceContext) {
  const { db, billing, publicUrl, requireReachable } = context;

  return {
    /** Which camera the account pays for, so a page about it can name it (decision 111). */
    async account(
      caller: BillingCaller,
      billingCustomerId: string,
    ): Promise<BillingAccountResponse> {
      await requireReachable(caller, billingCustomerId);
      const sim = await billingRepository.simOfBillingCustomer(db, billingCustomerId);
      const refusal = sim ? managePlanRefusal(sim) : null;
      return {
        customer_id: billingCustomerId,
        camera: sim && sim.state !== 'stock' ? { iccid: sim.iccid, nickname: sim.nickname } : null,
        can_manage_plan: refusal === null,
        manage_plan_refusal: refusal,
      };
    },

    async paymentMethods(
      caller: BillingCaller,
      billingCustomerId: string,
    ): Promise<{ payment_methods: PaymentMethod[] }> {
      await requireReachable(caller, billingCustomerId);
      const now = billing.now();
      const rows = await billingRepository.paymentMethods(db, billingCustomerId);
      return {
        payment_methods: rows.map((row) => ({
          id: row.id,
          card_brand: row.brand,
          last4: row.last4,
          exp_month: row.expMonth,
          exp_year: row.expYear,
          is_expired: isCardExpired(row, now),
          is_default: row.isDefault,
        })),
      };
    },

    /**
     * A repeated call with one Idempotency-Key (a retry of one click) gets the same session back
     * (plugins/idempotency.ts). Who opened
     * it goes on the activity log: cards are then changed on the provider's page, where only the
     * system records them (decision 092). `pay` (an overdue camera's Pay now) opens it to pay
     * what is due (decision 113).
     */
    async createPortalSession(
      caller: BillingCaller,
      billingCustomerId: string,
      actor?: Actor,
      purpose: PortalPurpose = 'manage',
    ) {
      await requireReachable(caller, billingCustomerId);
      const session = await mapBillingErrors(() =>
        billing.createPortalSession({
          billingCustomerId,
          returnUrl: `${publicUrl}/dashboard?refresh=true`,
          purpose,
        }),
      );
      if (actor) {
        await context.audit(actor, 'billing.portal_opened', { billingCustomerId, iccid: null }, {});
      }
      return session;
    },

    async createCustomerSecret(caller: BillingCaller, billingCustomerId: string) {
      await requireReachable(caller, billingCustomerId);
      return mapBillingErrors(() => billing.createCustomerSecret({ billingCustomerId }));
    },

    async invoices(caller: BillingCaller, billingCustomerId: string): Promise<InvoicesResponse> {
      await requireReachable(caller, billingCustomerId);
      const absolute = (url: string | null) => (url?.startsWith('/') ? `${publicUrl}${url}` : url);
      const rows = await billingRepository.invoices(db, billingCustomerId);
      const ids = rows.map((row) => row.id);
      const lines = await billingRepository.invoiceLines(db, ids);
      const notes = await billingRepository.creditNotes(db, ids);
      const balance = await billingRepository.creditBalance(db, billingCustomerId);
      // The cards say why an unpaid invoice is unpaid (decision 113); only then are they read.
      const cards = rows.some((row) => row.status === 'open')
        ? await billingRepository.paymentMethods(db, billingCustomerId)
        : [];
      const now = billing.now();
      return {
        credit_balance: balance.credit,
        currency: balance.currency,
        invoices: rows.map((row) => ({
          id: row.id,
          number: row.number,
          amount_due: row.amountDue,
          amount_paid: row.amountPaid,
          currency: row.currency,
          lines: linesOf(row, lines),
          total: row.total,
          tax: row.tax,
          credit_notes: notes
            .filter((note) => note.invoiceId === row.id)
            .map((note) => ({
              id: note.id,
              number: note.number,
              total: note.total,
              refund_amount: note.refundAmount,
              credit_amount: note.creditAmount,
              given_back: givenBack(note, (amount) => formatMoney(amount, note.currency)),
              created_date: note.createdAt.toISOString(),
              pdf: absolute(note.pdfUrl) ?? null,
            })),
          created_date: row.createdAt.toISOString(),
          due_date: invoiceDueDay(row),
          status: row.status,
          status_label: invoiceStatusLabel(row.status),
          status_detail: invoiceStatusDetail(row, cards, now),
          invoice_pdf: absolute(row.invoicePdfUrl),
          hosted_invoice_url: absolute(row.hostedInvoiceUrl),
          is_payable: row.status === 'open' && row.amountDue > row.amountPaid,
          attempt_count: row.attemptCount,
          next_payment_attempt: row.nextPaymentAttempt
            ? Math.floor(row.nextPaymentAttempt.getTime() / 1000)
            : null,
        })),
      };
    },
  };
}

/**
 * An invoice's lines with their amounts; an invoice mirrored without lines (from before they
 * were kept) shows its description for its total.
 */
function linesOf(
  invoice: { id: string; description: string; total: number; amountDue: number },
  lines: { invoiceId: string | null; description: string; amount: number }[],
): Invoice['lines'] {
  const own = lines.filter((line) => line.invoiceId === invoice.id);
  if (own.length > 0) {
    return own.map((line) => ({ description: line.description, amount: line.amount }));
  }
  return [{ description: invoice.description, amount: invoice.total || invoice.amountDue }];
}

export type BillingAccountService = ReturnType<typeof createBillingAccountService>;
