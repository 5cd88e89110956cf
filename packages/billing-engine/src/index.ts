/**
 * @farmcam/billing-engine: the local billing engine, a second billing system behind the billing
 * port (@farmcam/billing) beside the Stripe adapter. Its ledger is the portal's own tables
 * (@farmcam/db/schema); it renews, invoices with VAT and gapless numbers, issues credit notes,
 * runs dunning, serves its hosted pages and keeps a test clock. This entry is all the portal may
 * import of it; what it needs of the portal (the database, the clock, metrics, the logger's
 * part, the addresses and the supplier) is given at creation (decision 171). What it is for in
 * production, and what a business must do before invoicing through it: decision 172.
 */

// The engine, its clock and the hosted pages the app mounts.
export {
  createLocalBillingEngine,
  type LocalBillingEngine,
  type LocalBillingEngineDeps,
} from './local-billing-engine.ts';
export { createTestClock, type Clock, type TestClock } from './test-clock.ts';
export type { EngineMetrics } from './engine-metrics.ts';
export type { BillingEventDeliveryFailure } from './engine-events.ts';
export { hostedPagesPlugin, type HostedPagesOptions } from './hosted-pages.routes.ts';
export type { Supplier } from './invoice-document.ts';
export { defaultInvoicing, type InvoicingSettings } from './ledger.ts';

// A restore's billing fence (the server's cli/local-billing-restore.ts, decision 109).
export { restoreFenceKey, type RestoreFence } from './restore-fence.ts';

// Reads of the ledger the farm's Billing page shows: credit, invoice lines, credit-note PDFs.
export { availableCredit, creditNotePdfUrl, linesOfInvoices } from './ledger.ts';

// The ledger written directly, as the engine writes it: the demo seed and tests.
export {
  chargeInvoice,
  includedVat,
  insertCard,
  insertCustomer,
  invoiceUrls,
  issueInvoice,
  numberInvoicesInCreationOrder,
} from './ledger.ts';
