/**
 * Money and date wording of invoices, mails and hosted pages: the contract's shared formatters
 * (docs/decisions/081), re-exported for the billing providers.
 */
export { formatDay, formatMoney, isoDay } from '@farmcam/contract/rules';
