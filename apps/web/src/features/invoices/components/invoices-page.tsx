import type { Invoice } from '@farmcam/contract';
import { useParams } from 'react-router';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { formatDay, formatMoney } from '../../../lib/money.ts';
import { useInvoices } from '../api/fetch-invoices.ts';
import styles from './invoices-page.module.css';

/** Spec §3: an invoice is known by the last 8 characters of its id. */
export const shortInvoiceId = (id: string) => id.slice(-8);

function InvoiceRow({ invoice }: { invoice: Invoice }) {
  const isPaid = invoice.status === 'paid';
  const shortId = shortInvoiceId(invoice.id);
  return (
    <tr>
      <td data-label="Amount" className={styles.amount}>
        {formatMoney(invoice.amount_due, invoice.currency)}
      </td>
      <td data-label="Plan">
        <div>
          {invoice.lines[0]?.description ?? ''}
          <span className={styles.invoiceId}>Invoice {shortId}</span>
        </div>
      </td>
      <td data-label="Created">{formatDay(invoice.created_date)}</td>
      <td data-label="Status">
        <span className={isPaid ? styles.paid : styles.unpaid}>{invoice.status}</span>
      </td>
      <td data-label="Actions">
        {isPaid
          ? invoice.invoice_pdf && (
              <a href={invoice.invoice_pdf} download aria-label={`Download invoice ${shortId}`}>
                Download
              </a>
            )
          : invoice.hosted_invoice_url && (
              <a
                href={invoice.hosted_invoice_url}
                target="_blank"
                rel="noopener noreferrer"
                className={styles.payNow}
                aria-label={`Pay now invoice ${shortId} (opens in a new tab)`}
              >
                Pay now
              </a>
            )}
      </td>
    </tr>
  );
}

/** Invoices (/invoices/{stripeId}): Amount, Plan, Created, Status, Actions (spec §2, §4). */
export function InvoicesPage() {
  const { stripeId = '' } = useParams();
  const invoices = useInvoices(stripeId);

  return (
    <Card>
      {invoices.isPending ? (
        <Loader label="Loading invoices…" />
      ) : invoices.isError ? (
        <p role="alert" className={styles.error}>
          {errorMessage(invoices.error, 'Could not load the invoices.')}
        </p>
      ) : invoices.data.length === 0 ? (
        <p>No invoices yet.</p>
      ) : (
        <table className={styles.table} aria-label="Invoices">
          <thead>
            <tr>
              <th scope="col">Amount</th>
              <th scope="col">Plan</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {invoices.data.map((invoice) => (
              <InvoiceRow key={invoice.id} invoice={invoice} />
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
