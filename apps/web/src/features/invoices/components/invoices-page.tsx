import type { Invoice } from '@farmcam/contract';
import { useParams } from '../../../lib/router/index.ts';
import { BillingAccountPage } from '../../../components/billing/billing-account-page.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { formatDay, formatMoney } from '@farmcam/contract/rules';
import { useInvoices } from '../api/fetch-invoices.ts';
import styles from './invoices-page.module.css';

/** docs/requirements.md#data: an invoice is known by the last 8 characters of its id. */
export const shortInvoiceId = (id: string) => id.slice(-8);

const statusStyles = {
  Paid: styles.paid,
  Unpaid: styles.unpaid,
  Void: styles.void,
  Draft: styles.void,
};

function InvoiceRow({ invoice }: { invoice: Invoice }) {
  const money = (amount: number) => formatMoney(amount, invoice.currency);
  return (
    <tr>
      <td data-label="Amount" className={styles.amount}>
        {money(invoice.amount_due)}
      </td>
      <td data-label="Plan">
        <div className={styles.details}>
          <span className={styles.invoiceNumber}>Invoice {invoice.number}</span>
          {/* Every line with its amount: a downgrade's unused time shows as a credit. */}
          <ul className={styles.lines} aria-label={`Lines of invoice ${invoice.number}`}>
            {invoice.lines.map((line, index) => (
              <li key={index} className={line.amount < 0 ? styles.creditLine : undefined}>
                <span>{line.description}</span>
                <span className={styles.lineAmount}>{money(line.amount)}</span>
              </li>
            ))}
          </ul>
          {invoice.credit_notes.map((note) => (
            <p key={note.id} className={styles.creditNote}>
              Credit note {note.number}: {note.given_back}{' '}
              {note.pdf && (
                <a href={note.pdf} download>
                  Download PDF<span className="visually-hidden"> of credit note {note.number}</span>
                </a>
              )}
            </p>
          ))}
        </div>
      </td>
      <td data-label="Created" className={styles.date}>
        {formatDay(invoice.created_date)}
      </td>
      <td data-label="Due date" className={styles.date}>
        {formatDay(invoice.due_date)}
      </td>
      <td data-label="Status">
        {/* One word for each status on every screen, and what it means (decision 113). */}
        <div className={styles.details}>
          <span className={statusStyles[invoice.status_label]}>{invoice.status_label}</span>
          {invoice.status_detail && (
            <span className={styles.statusDetail}>{invoice.status_detail}</span>
          )}
        </div>
      </td>
      <td data-label="Actions">
        <div className={styles.actions}>
          {invoice.is_payable && invoice.hosted_invoice_url && (
            <a
              href={invoice.hosted_invoice_url}
              target="_blank"
              rel="noopener noreferrer"
              className={styles.payNow}
            >
              Pay now
              <span className="visually-hidden">
                {' '}
                invoice {invoice.number} (opens in a new tab)
              </span>
            </a>
          )}
          {/* The same name for the same action on every screen and hosted page (decision 113). */}
          {invoice.invoice_pdf && (
            <a href={invoice.invoice_pdf} download>
              Download PDF<span className="visually-hidden"> of invoice {invoice.number}</span>
            </a>
          )}
        </div>
      </td>
    </tr>
  );
}

/**
 * Invoices (/invoices/{stripeId}): Amount, Plan, Created, Status, Actions (docs/requirements.md#screens, #states),
 * with the day each was due beside them (decision 113), titled with the camera they are for
 * (decision 111).
 */
export function InvoicesPage() {
  const { stripeId = '' } = useParams();
  return (
    <BillingAccountPage customerId={stripeId} pageName="Invoices">
      {() => <InvoiceList stripeId={stripeId} />}
    </BillingAccountPage>
  );
}

function InvoiceList({ stripeId }: { stripeId: string }) {
  const invoices = useInvoices(stripeId);

  return (
    <Card>
      {invoices.isPending ? (
        <Loader label="Loading invoices…" />
      ) : invoices.data === undefined ? (
        <p role="alert" className={styles.error}>
          {errorMessage(invoices.error, 'Could not load the invoices.')}
        </p>
      ) : (
        <>
          {invoices.data.credit_balance > 0 && (
            <p className={styles.balance} role="status">
              Credit on this camera’s account:{' '}
              <strong>{formatMoney(invoices.data.credit_balance, invoices.data.currency)}</strong>,
              taken off the next invoice.
            </p>
          )}
          {invoices.data.invoices.length === 0 ? (
            <p>No invoices yet.</p>
          ) : (
            <table className={styles.table} aria-label="Invoices">
              <thead>
                <tr>
                  <th scope="col">Amount</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Created</th>
                  <th scope="col">Due date</th>
                  <th scope="col">Status</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {invoices.data.invoices.map((invoice) => (
                  <InvoiceRow key={invoice.id} invoice={invoice} />
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </Card>
  );
}
