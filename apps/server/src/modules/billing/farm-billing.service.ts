/**
 * The farm's Billing page (issue 24 item 11; decisions 127, 128, 129): every camera's invoices in
 * one list with filters and a CSV for the accountant, what is due now and one Pay all, the next
 * bill of each camera, the card each camera's charges use, one step to put a card on every
 * camera, and the billing address and VAT number invoices carry. Each camera keeps its own
 * billing account (billing.ts): everything here goes through the billing port, account by account.
 */
import { cameraNameOf } from '@farmcam/contract/rules';
import { createHash, randomUUID } from 'node:crypto';
import type {
  BillingDetailsBody,
  BillingDetailsView,
  CardSetupResponse,
  FarmBillingResponse,
  FarmInvoice,
  FarmInvoicesQuery,
  PayAllResponse,
} from '@farmcam/contract';
import type { BillingDetails } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import {
  invoiceDueDay,
  invoiceStatusDetail,
  invoiceStatusLabel,
} from '@farmcam/billing/bill-words';
import { BillingError } from '@farmcam/billing';
import { chargedCardOf, isCardExpired } from '@farmcam/billing/card-rules';
import { formatDay, formatMoney, isoDay } from '@farmcam/billing/money';
import {
  mapBillingErrors,
  type Actor,
  type BillingServiceContext,
} from './billing-service-context.ts';
import { farmBillingRepository, type InvoiceFilters } from './farm-billing.repository.ts';
import { billingDetailsError, normaliseBillingDetails } from './billing-details-rules.ts';

type Account = Awaited<ReturnType<typeof farmBillingRepository.accounts>>[number];
type InvoiceRow = Awaited<ReturnType<typeof farmBillingRepository.invoices>>[number];
type CardRow = Awaited<ReturnType<typeof farmBillingRepository.cards>>[number];

const monthYear = new Intl.DateTimeFormat('en-GB', {
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});
const expiryMonth = (card: { expMonth: number; expYear: number }) =>
  monthYear.format(new Date(Date.UTC(card.expYear, card.expMonth - 1, 1)));
/** The first instant after a card's expiry month: it is valid until then (card-rules.ts). */
const validUntil = (card: { expMonth: number; expYear: number }) =>
  new Date(Date.UTC(card.expYear, card.expMonth, 1));

const cameraOf = (account: Account | undefined) =>
  account?.iccid ? { iccid: account.iccid, nickname: account.nickname } : null;

/** "Fuel tank" or "Camera 1071": how a camera is named in a sentence (decision 170). */
const cameraName = (camera: { iccid: string; nickname: string | null } | null) =>
  camera ? cameraNameOf(camera.nickname, camera.iccid) : 'An account without a camera';

const remainingOf = (invoice: InvoiceRow) =>
  invoice.status === 'open' ? Math.max(invoice.amountDue - invoice.amountPaid, 0) : 0;

/** The details as the API shows them. */
export const detailsView = (
  details: BillingDetails | null | undefined,
): BillingDetailsView | null =>
  details
    ? {
        name: details.name,
        line1: details.line1,
        line2: details.line2,
        town: details.town,
        postcode: details.postcode,
        vat_number: details.vatNumber,
      }
    : null;

export function createFarmBillingService(context: BillingServiceContext) {
  const { db, billing, publicUrl } = context;

  const absolute = (url: string | null) => (url?.startsWith('/') ? `${publicUrl}${url}` : url);

  /** The farm's accounts and the filters in terms of them (a camera that is not the farm's: 404). */
  async function scope(customerId: string, query: FarmInvoicesQuery) {
    const accounts = await farmBillingRepository.accounts(db, customerId);
    const filters: InvoiceFilters = { status: query.status, from: query.from, to: query.to };
    if (query.camera) {
      const account = accounts.find((candidate) => candidate.iccid === query.camera);
      if (!account) throw new AppError('NOT_FOUND', 'Camera not found');
      filters.billingCustomerIds = [account.id];
    }
    return { accounts, filters };
  }

  function invoiceView(
    row: InvoiceRow,
    account: Account | undefined,
    cards: CardRow[],
    now: Date,
  ): FarmInvoice {
    return {
      id: row.id,
      number: row.number,
      billing_customer_id: row.billingCustomerId,
      camera: cameraOf(account),
      created_date: row.createdAt.toISOString(),
      due_date: invoiceDueDay(row),
      total: row.total || row.amountDue,
      tax: row.tax,
      amount_due: row.amountDue,
      amount_remaining: remainingOf(row),
      currency: row.currency,
      status: row.status,
      status_label: invoiceStatusLabel(row.status),
      status_detail: invoiceStatusDetail(
        row,
        cards.filter((card) => card.billingCustomerId === row.billingCustomerId),
        now,
      ),
      invoice_pdf: absolute(row.invoicePdfUrl),
      hosted_invoice_url: absolute(row.hostedInvoiceUrl),
    };
  }

  /** What the card a camera's next charge uses needs, in words (null: nothing). */
  function cardWarning(card: CardRow | undefined, nextBill: Date | null, now: Date): string | null {
    const when = nextBill ? ` on ${formatDay(nextBill)}` : '';
    if (!card) return `No card: add one before the next bill${when}.`;
    if (isCardExpired(card, now)) {
      return `Card ending ${card.last4} expired in ${expiryMonth(card)}: update it${nextBill ? ` before the next bill${when}` : ''}.`;
    }
    if (nextBill && validUntil(card) <= nextBill) {
      return `Card ending ${card.last4} expires at the end of ${expiryMonth(card)}, before the next bill${when}.`;
    }
    return null;
  }

  return {
    async farmBilling(customerId: string, query: FarmInvoicesQuery): Promise<FarmBillingResponse> {
      const { accounts, filters } = await scope(customerId, query);
      const ids = accounts.map((account) => account.id);
      const byId = new Map(accounts.map((account) => [account.id, account]));
      const [rows, open, cards, current, farmDetails] = await Promise.all([
        farmBillingRepository.invoices(db, filters.billingCustomerIds ?? ids, filters),
        farmBillingRepository.invoices(db, ids, { status: 'unpaid' }),
        farmBillingRepository.cards(db, ids),
        farmBillingRepository.currentSubscriptions(db, ids),
        farmBillingRepository.farmDetails(db, customerId),
      ]);
      const now = billing.now();
      // The next bill of each camera with a live subscription, as the provider previews it.
      const upcoming: FarmBillingResponse['upcoming'] = [];
      const nextBillOf = new Map<string, Date>();
      for (const subscription of current) {
        const account = byId.get(subscription.billingCustomerId);
        const camera = cameraOf(account);
        if (!camera || !['active', 'past_due', 'paused'].includes(subscription.status)) continue;
        const preview = await mapBillingErrors(() =>
          billing.previewUpcomingInvoice({ subscriptionId: subscription.id }),
        );
        if (!preview) continue;
        nextBillOf.set(subscription.billingCustomerId, preview.raisedAt);
        upcoming.push({
          camera,
          billing_customer_id: subscription.billingCustomerId,
          date: isoDay(preview.raisedAt),
          amount_due: preview.amountDue,
          currency: preview.currency,
        });
      }
      upcoming.sort(
        (a, b) =>
          a.date.localeCompare(b.date) || cameraName(a.camera).localeCompare(cameraName(b.camera)),
      );
      const cameras = accounts
        .filter((account) => account.iccid && account.simState !== 'terminated')
        .map((account) => {
          const own = cards.filter((card) => card.billingCustomerId === account.id);
          const card = chargedCardOf(own, now);
          return {
            iccid: account.iccid!,
            nickname: account.nickname,
            billing_customer_id: account.id,
            card: card
              ? {
                  brand: card.brand,
                  last4: card.last4,
                  exp_month: card.expMonth,
                  exp_year: card.expYear,
                  is_expired: isCardExpired(card, now),
                  expires_soon:
                    !isCardExpired(card, now) &&
                    validUntil(card) <=
                      (nextBillOf.get(account.id) ?? new Date(now.getTime() + 31 * 86_400_000)),
                }
              : null,
            card_warning: cardWarning(card, nextBillOf.get(account.id) ?? null, now),
          };
        });
      return {
        currency: open[0]?.currency ?? rows[0]?.currency ?? 'gbp',
        due_now: {
          amount: open.reduce((sum, row) => sum + remainingOf(row), 0),
          invoices: open.filter((row) => remainingOf(row) > 0).length,
        },
        invoices: rows.map((row) => invoiceView(row, byId.get(row.billingCustomerId), cards, now)),
        cameras,
        upcoming,
        details: detailsView(farmDetails),
      };
    },

    /**
     * The filtered invoices for an accountant's spreadsheet: UK dates, pounds without the sign
     * (the header says £), VAT apart from the net; a cell that a spreadsheet would run as a
     * formula is quoted as text.
     */
    async invoicesCsv(customerId: string, query: FarmInvoicesQuery): Promise<string> {
      const { accounts, filters } = await scope(customerId, query);
      const byId = new Map(accounts.map((account) => [account.id, account]));
      const rows = await farmBillingRepository.invoices(
        db,
        filters.billingCustomerIds ?? accounts.map((account) => account.id),
        filters,
      );
      const pounds = (minor: number) => (minor / 100).toFixed(2);
      const ukDay = (day: Date) =>
        new Intl.DateTimeFormat('en-GB', {
          day: '2-digit',
          month: '2-digit',
          year: 'numeric',
          timeZone: 'UTC',
        }).format(day);
      const header = [
        'Invoice number',
        'Camera',
        'SIM',
        'Date',
        'Due date',
        'Status',
        'Net (£)',
        'VAT (£)',
        'Total (£)',
        'Paid (£)',
        'Still to pay (£)',
        'Currency',
      ];
      const lines = rows.map((row) => {
        const account = byId.get(row.billingCustomerId);
        const total = row.total || row.amountDue;
        return [
          row.number,
          account?.nickname ?? '',
          account?.iccid ?? '',
          ukDay(row.createdAt),
          ukDay(row.createdAt),
          invoiceStatusLabel(row.status),
          pounds(total - row.tax),
          pounds(row.tax),
          pounds(total),
          pounds(row.amountPaid),
          pounds(remainingOf(row)),
          row.currency.toUpperCase(),
        ];
      });
      return `${[header, ...lines].map((cells) => cells.map(csvCell).join(',')).join('\r\n')}\r\n`;
    },

    /**
     * Pays every open invoice of the farm, each through its own camera's account (decision 128),
     * if what is due is still what the farmer was shown. Each invoice's payment has its own key
     * made from the request's, so a retry of the same click pays none twice; a decline or a
     * failure is reported for its invoice and the others go on.
     */
    async payAll(
      customerId: string,
      amount: number,
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<PayAllResponse> {
      if (!idempotencyKey) {
        throw new AppError(
          'VALIDATION_FAILED',
          'Pay all needs an Idempotency-Key header, so that a retry never pays a bill twice.',
        );
      }
      const accounts = await farmBillingRepository.accounts(db, customerId);
      const byId = new Map(accounts.map((account) => [account.id, account]));
      const open = (
        await farmBillingRepository.invoices(
          db,
          accounts.map((account) => account.id),
          { status: 'unpaid' },
        )
      )
        .filter((row) => remainingOf(row) > 0)
        .reverse();
      const due = open.reduce((sum, row) => sum + remainingOf(row), 0);
      const currency = open[0]?.currency ?? 'gbp';
      if (due === 0) throw new AppError('CONFLICT', 'Nothing is due now: every bill is paid.');
      if (due !== amount) {
        throw new AppError(
          'CONFLICT',
          `What is due has changed since the page was shown: it is now ${formatMoney(due, currency)}. Check it and try again.`,
        );
      }
      const results: PayAllResponse['results'] = [];
      for (const invoice of open) {
        const camera = cameraOf(byId.get(invoice.billingCustomerId));
        const base = {
          invoice_id: invoice.id,
          number: invoice.number,
          camera,
          amount: remainingOf(invoice),
        };
        const money = formatMoney(base.amount, invoice.currency);
        try {
          const result = await billing.payInvoiceNow({
            invoiceId: invoice.id,
            idempotencyKey: `pay-all-${customerId}-${idempotencyKey}-${invoice.id}`,
          });
          if (result.outcome === 'declined') {
            results.push({
              ...base,
              outcome: 'declined',
              message: `${cameraName(camera)}: ${money} not paid. ${result.reason}`,
            });
          } else {
            results.push({
              ...base,
              outcome: result.outcome,
              message:
                result.outcome === 'paid'
                  ? `${cameraName(camera)}: ${money} paid.`
                  : `${cameraName(camera)}: ${money} was already paid; nothing more was taken.`,
            });
          }
        } catch (error) {
          if (!(error instanceof BillingError)) throw error;
          results.push({
            ...base,
            outcome: 'failed',
            message: `${cameraName(camera)}: ${money} not paid. ${error.message}`,
          });
        }
      }
      const paid = results
        .filter((result) => result.outcome === 'paid')
        .reduce((sum, result) => sum + result.amount, 0);
      await context.audit(
        actor,
        'billing.pay_all',
        { billingCustomerId: open[0]!.billingCustomerId, iccid: null },
        {
          amount: paid,
          currency,
          paid: results.filter((result) => result.outcome === 'paid').length,
          failed: results.filter(
            (result) => result.outcome === 'declined' || result.outcome === 'failed',
          ).length,
        },
      );
      return { paid, currency, results };
    },

    async billingDetails(customerId: string): Promise<{ details: BillingDetailsView | null }> {
      return { details: detailsView(await farmBillingRepository.farmDetails(db, customerId)) };
    },

    /**
     * Keeps the farm's billing address and VAT number and gives them to every camera's account
     * (decision 127): invoices raised from now on carry them; those already issued stay as they
     * were. An account the provider could not update is tried again by saving again.
     */
    async saveBillingDetails(customerId: string, body: BillingDetailsBody, actor: Actor) {
      const problem = billingDetailsError(body);
      if (problem) throw new AppError('VALIDATION_FAILED', problem);
      const details = normaliseBillingDetails(body);
      await farmBillingRepository.saveFarmDetails(db, customerId, details);
      const accounts = await farmBillingRepository.accounts(db, customerId);
      const version = createHash('sha256')
        .update(JSON.stringify(details))
        .digest('hex')
        .slice(0, 16);
      let failed = 0;
      for (const account of accounts) {
        try {
          await billing.updateCustomerDetails({
            billingCustomerId: account.id,
            details,
            idempotencyKey: `details-${account.id}-${version}`,
          });
        } catch (error) {
          if (!(error instanceof BillingError)) throw error;
          if (error.kind === 'invalid') throw new AppError('VALIDATION_FAILED', error.message);
          failed += 1;
        }
      }
      await context.audit(
        actor,
        'billing.details_changed',
        { billingCustomerId: accounts[0]?.id ?? customerId, iccid: null },
        {
          hasVatNumber: details.vatNumber !== null,
        },
      );
      if (failed > 0) {
        throw new AppError(
          'PROVIDER_UNAVAILABLE',
          `Saved, but ${failed} of ${accounts.length} cameras' billing accounts could not be updated just now. Save again to finish.`,
        );
      }
      return { details: detailsView(details) };
    },

    /**
     * The page(s) where one card becomes every camera's default card (decision 129): the local
     * engine's one form, or Stripe's setup page per camera's account.
     */
    async cardForEveryCamera(
      customerId: string,
      idempotencyKey: string | undefined,
      actor: Actor,
    ): Promise<CardSetupResponse> {
      const accounts = (await farmBillingRepository.accounts(db, customerId)).filter(
        (account) => account.iccid && account.simState !== 'terminated',
      );
      if (accounts.length === 0)
        throw new AppError('CONFLICT', 'There is no camera to add a card to yet.');
      const byId = new Map(accounts.map((account) => [account.id, account]));
      const { steps } = await mapBillingErrors(() =>
        billing.startCardSetup({
          billingCustomerIds: accounts.map((account) => account.id),
          returnUrl: `${publicUrl}/billing`,
          idempotencyKey: `card-setup-${customerId}-${idempotencyKey ?? randomUUID()}`,
        }),
      );
      await context.audit(
        actor,
        'billing.portal_opened',
        { billingCustomerId: accounts[0]!.id, iccid: null },
        {},
      );
      return {
        steps: steps.map((step) => ({
          url: step.url,
          cameras: step.billingCustomerIds.map((id) => cameraOf(byId.get(id))!).filter(Boolean),
        })),
      };
    },
  };
}

/** One CSV cell: quoted when needed; a leading = + - @ is made text so no spreadsheet runs it. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export type FarmBillingService = ReturnType<typeof createFarmBillingService>;
