import type {
  BillingDetailsBody,
  CardSetupResponse,
  FarmBillingResponse,
  FarmInvoice,
  PayAllResponse,
} from '@farmcam/contract';
import { cameraNameOf, formatDay, formatMoney } from '@farmcam/contract/rules';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useSearchParams } from '../../../lib/router/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Chip, type ChipTone } from '../../../components/ui/chip.tsx';
import { FilterBar, FilterDateRange, FilterSelect } from '../../../components/ui/filter-bar.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useAccess } from '../../../lib/access.ts';
import {
  downloadInvoicesCsv,
  useCardForEveryCamera,
  useFarmBilling,
  usePayAll,
  useSaveBillingDetails,
  type FarmBillingFilters,
  type PayAllIntent,
} from '../api/farm-billing.ts';
import styles from './billing-page.module.css';

const filterKeys = ['status', 'camera', 'from', 'to'] as const;

function filtersOf(search: URLSearchParams): FarmBillingFilters {
  const filters: Record<string, string> = {};
  for (const key of filterKeys) {
    const value = search.get(key);
    if (value) filters[key] = value;
  }
  // Anything odd in the URL is left to the server, which answers with a sentence.
  return filters as FarmBillingFilters;
}

const statusTone: Record<FarmInvoice['status_label'], ChipTone> = {
  Paid: 'success',
  Unpaid: 'danger',
  Void: 'inactive',
  Draft: 'neutral',
};

const cameraOf = (camera: { iccid: string; nickname: string | null } | null) =>
  camera ? cameraNameOf(camera.nickname, camera.iccid) : 'No camera';

const brandOf = (brand: string) =>
  brand === 'mastercard' ? 'Mastercard' : brand.charAt(0).toUpperCase() + brand.slice(1);

/**
 * Billing (/billing, the account owner's; decisions 127–129): every camera's invoices with
 * filters (kept in the URL), PDFs and a CSV; what is due now and Pay all; the next bills; each
 * camera's card with one step to use a card for every camera; the billing address and VAT number.
 * The server decides everything shown; this page only lays it out.
 */
/** "25 November 2026" may wrap before the year only, so a date column stays two lines high. */
const dayAndMonthTogether = (day: string) => day.replace(/^(\d+) /, '$1\u00a0');

export function BillingPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = filtersOf(searchParams);
  const access = useAccess();
  const isAllowed = access?.can.manageBilling === true;
  const billing = useFarmBilling(filters, isAllowed);
  const cardSaved = searchParams.get('card') === 'saved';

  const setFilters = (next: FarmBillingFilters) => {
    const search = new URLSearchParams();
    for (const key of filterKeys) {
      const value = next[key];
      if (value) search.set(key, value);
    }
    setSearchParams(search, { replace: true });
  };

  if (access && !isAllowed) {
    return (
      <p className={styles.intro}>
        Only the account owner sees the farm&apos;s bills and cards. Ask {access.accountEmail} if
        something needs paying.
      </p>
    );
  }
  if (!access || billing.isPending) return <Loader label="Loading the farm's billing…" />;
  if (billing.isError) {
    return (
      <div className={styles.problem}>
        <p role="alert" className={styles.error}>
          {errorMessage(billing.error, "Could not load the farm's billing, please try again.")}
        </p>
        <Button
          variant="secondary"
          onClick={() => void billing.refetch()}
          isLoading={billing.isFetching}
        >
          Try again
        </Button>
      </div>
    );
  }
  const data = billing.data;
  return (
    <div className={styles.page}>
      <p className={styles.intro}>
        Every camera has its own bills and card. This page puts them together: pay what is due,
        download invoices for your accountant and keep the cards up to date.
      </p>
      {cardSaved && (
        <p role="status" className={styles.success}>
          Card saved: {cardSavedWords(searchParams)}
        </p>
      )}
      <div className={styles.summary}>
        <DueNow data={data} />
        <NextBills upcoming={data.upcoming} />
      </div>
      <Invoices data={data} filters={filters} onChange={setFilters} />
      <Cards cameras={data.cameras} />
      <DetailsForm details={data.details} />
    </div>
  );
}

function cardSavedWords(search: URLSearchParams): string {
  const cameras = Number(search.get('cameras'));
  if (cameras > 0) {
    return `it is now the card for ${cameras === 1 ? '1 camera' : `${cameras} cameras`}; their next bills are charged to it.`;
  }
  return 'the next bills of that camera are charged to it.';
}

function DueNow({ data }: { data: FarmBillingResponse }) {
  const payAll = usePayAll();
  const [intent, setIntent] = useState<PayAllIntent | null>(null);
  const due = data.due_now;
  const money = formatMoney(due.amount, data.currency);
  const pay = () => {
    // One click, one key: a retry of this click (the same intent) is never applied twice.
    const next = intent?.amount === due.amount && payAll.isError ? intent : { amount: due.amount };
    setIntent(next);
    payAll.mutate(next);
  };
  return (
    <Card title="Due now" className={styles.dueCard}>
      <p className={styles.total}>{money}</p>
      <p className={styles.muted}>
        {due.invoices === 0
          ? 'Nothing to pay: every bill is paid.'
          : `${due.invoices} unpaid ${due.invoices === 1 ? 'bill' : 'bills'}, each paid with its own camera's card.`}
      </p>
      {due.amount > 0 && (
        <Button onClick={pay} isLoading={payAll.isPending}>
          Pay all {money}
        </Button>
      )}
      {payAll.isError && (
        <p role="alert" className={styles.error}>
          {errorMessage(payAll.error, 'Could not pay, please try again: nothing is paid twice.')}
        </p>
      )}
      {payAll.data && <PayAllResult result={payAll.data} />}
    </Card>
  );
}

function PayAllResult({ result }: { result: PayAllResponse }) {
  const failed = result.results.filter(
    (entry) => entry.outcome === 'declined' || entry.outcome === 'failed',
  );
  return (
    <div role="status" className={styles.payResult}>
      <p>
        {result.paid > 0
          ? `${formatMoney(result.paid, result.currency)} paid.`
          : 'Nothing was paid.'}
        {failed.length > 0 &&
          ` ${failed.length} ${failed.length === 1 ? 'bill was' : 'bills were'} not paid: update ${failed.length === 1 ? 'its card' : 'their cards'} below and try again.`}
      </p>
      <ul className={styles.resultList}>
        {result.results.map((entry) => (
          <li
            key={entry.invoice_id}
            className={
              entry.outcome === 'declined' || entry.outcome === 'failed' ? styles.errorText : ''
            }
          >
            {entry.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

function NextBills({ upcoming }: { upcoming: FarmBillingResponse['upcoming'] }) {
  return (
    <Card title="Next bills" className={styles.nextCard}>
      {upcoming.length === 0 ? (
        <p className={styles.muted}>No bills are coming: no camera has a running plan.</p>
      ) : (
        <ul className={styles.nextList}>
          {upcoming.slice(0, 6).map((bill) => (
            <li key={bill.billing_customer_id}>
              <span>{formatDay(bill.date)}</span>
              <span className={styles.nextCamera}>{cameraOf(bill.camera)}</span>
              <span className={styles.amount}>{formatMoney(bill.amount_due, bill.currency)}</span>
            </li>
          ))}
        </ul>
      )}
      {upcoming.length > 6 && (
        <p className={styles.muted}>And {upcoming.length - 6} more after those.</p>
      )}
    </Card>
  );
}

function Invoices({
  data,
  filters,
  onChange,
}: {
  data: FarmBillingResponse;
  filters: FarmBillingFilters;
  onChange: (filters: FarmBillingFilters) => void;
}) {
  const [download, setDownload] = useState<{ isBusy: boolean; error: string | null }>({
    isBusy: false,
    error: null,
  });
  const set = (key: keyof FarmBillingFilters, value: string) =>
    onChange({ ...filters, [key]: value === '' ? undefined : value });
  const hasFilters = filterKeys.some((key) => filters[key]);
  const cameraChoices = data.cameras.map((camera) => ({
    iccid: camera.iccid,
    name: cameraNameOf(camera.nickname, camera.iccid),
  }));
  for (const invoice of data.invoices) {
    if (invoice.camera && !cameraChoices.some((choice) => choice.iccid === invoice.camera!.iccid)) {
      cameraChoices.push({ iccid: invoice.camera.iccid, name: cameraOf(invoice.camera) });
    }
  }
  const downloadCsv = async () => {
    setDownload({ isBusy: true, error: null });
    try {
      await downloadInvoicesCsv(filters);
      setDownload({ isBusy: false, error: null });
    } catch (error) {
      setDownload({
        isBusy: false,
        error: errorMessage(error, 'Could not download the CSV, please try again.'),
      });
    }
  };
  return (
    <Card title="Invoices">
      <FilterBar label="Filter the invoices" className={styles.filters}>
        <FilterSelect
          label="Status"
          value={filters.status ?? ''}
          anyLabel="Any status"
          options={[
            { value: 'unpaid', label: 'Unpaid' },
            { value: 'paid', label: 'Paid' },
            { value: 'void', label: 'Void' },
          ]}
          onChange={(value) => set('status', value)}
        />
        <FilterSelect
          label="Camera"
          value={filters.camera ?? ''}
          anyLabel="All cameras"
          options={cameraChoices.map((camera) => ({ value: camera.iccid, label: camera.name }))}
          onChange={(value) => set('camera', value)}
        />
        <FilterDateRange from={filters.from} to={filters.to} onChange={set} />
      </FilterBar>
      <div className={styles.listBar}>
        <p className={styles.muted} role="status">
          {data.invoices.length === 1 ? '1 invoice' : `${data.invoices.length} invoices`}
          {hasFilters ? ' match these filters.' : '.'}
        </p>
        <div className={styles.listActions}>
          {hasFilters && (
            <Button variant="secondary" onClick={() => onChange({})}>
              Clear filters
            </Button>
          )}
          <Button
            variant="secondary"
            onClick={() => void downloadCsv()}
            isLoading={download.isBusy}
            disabled={data.invoices.length === 0}
          >
            Download CSV
          </Button>
        </div>
      </div>
      {download.error && (
        <p role="alert" className={styles.error}>
          {download.error}
        </p>
      )}
      {data.invoices.length === 0 ? (
        <p className={styles.empty}>
          {hasFilters ? 'No invoices match these filters.' : 'No invoices yet.'}
        </p>
      ) : (
        <table className={styles.table}>
          <thead>
            <tr>
              <th scope="col">Camera</th>
              <th scope="col">Invoice</th>
              <th scope="col">Date</th>
              <th scope="col">Due date</th>
              <th scope="col" className={styles.amountHead}>
                Amount
              </th>
              <th scope="col">Status</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {data.invoices.map((invoice) => (
              <tr key={invoice.id}>
                <td data-label="Camera" className={styles.cameraCell}>
                  <span>{cameraOf(invoice.camera)}</span>
                </td>
                <td data-label="Invoice" className={styles.numberCell}>
                  <span>{invoice.number}</span>
                </td>
                <td data-label="Date" className={styles.dayCell}>
                  <span>{dayAndMonthTogether(formatDay(invoice.created_date))}</span>
                </td>
                <td data-label="Due date" className={styles.dayCell}>
                  <span>{dayAndMonthTogether(formatDay(invoice.due_date))}</span>
                </td>
                <td data-label="Amount" className={styles.amount}>
                  <span>
                    {formatMoney(invoice.total, invoice.currency)}
                    <span className={styles.vat}>
                      incl. VAT {formatMoney(invoice.tax, invoice.currency)}
                    </span>
                  </span>
                </td>
                <td data-label="Status">
                  <span>
                    <Chip tone={statusTone[invoice.status_label]}>{invoice.status_label}</Chip>
                    {invoice.status_label === 'Unpaid' && invoice.status_detail && (
                      <span className={styles.detail}>{invoice.status_detail}</span>
                    )}
                  </span>
                </td>
                <td data-label="Actions">
                  <span className={styles.actions}>
                    {invoice.invoice_pdf && (
                      <a href={invoice.invoice_pdf} target="_blank" rel="noreferrer">
                        Download PDF
                        <span className="visually-hidden"> of invoice {invoice.number}</span>
                      </a>
                    )}
                    {invoice.status_label === 'Unpaid' && invoice.hosted_invoice_url && (
                      <a href={invoice.hosted_invoice_url} target="_blank" rel="noreferrer">
                        Pay this bill
                        <span className="visually-hidden"> ({invoice.number})</span>
                      </a>
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

function Cards({ cameras }: { cameras: FarmBillingResponse['cameras'] }) {
  const start = useCardForEveryCamera();
  const [steps, setSteps] = useState<CardSetupResponse['steps'] | null>(null);
  const begin = () =>
    start.mutate(
      {},
      {
        onSuccess: (answer) => {
          // One page for every camera (the local engine): go there; Stripe: one page a camera.
          if (answer.steps.length === 1) window.location.assign(answer.steps[0]!.url);
          else setSteps(answer.steps);
        },
      },
    );
  const needing = cameras.filter((camera) => camera.card_warning).length;
  return (
    <Card title="Cards">
      <p className={styles.muted}>
        {needing === 0
          ? 'Every camera has a card that is good for its next bill.'
          : `${needing} ${needing === 1 ? 'camera needs' : 'cameras need'} a card.`}
      </p>
      {cameras.length > 0 && (
        <div className={styles.cardStep}>
          <Button onClick={begin} isLoading={start.isPending}>
            Use one card for every camera
          </Button>
          <p className={styles.muted}>
            You type the card once and it becomes the card of all {cameras.length} cameras. Nothing
            is charged now.
          </p>
        </div>
      )}
      {start.isError && (
        <p role="alert" className={styles.error}>
          {errorMessage(start.error, 'Could not open the card page, please try again.')}
        </p>
      )}
      {steps && (
        <ol className={styles.steps} aria-label="Add the card to each camera">
          {steps.map((step, index) => (
            <li key={step.url}>
              <a href={step.url}>
                Step {index + 1} of {steps.length}: add the card for{' '}
                {step.cameras.map((camera) => cameraOf(camera)).join(', ')}
              </a>
            </li>
          ))}
        </ol>
      )}
      <ul className={styles.cardList}>
        {cameras.map((camera) => (
          <li key={camera.iccid} className={styles.cardRow}>
            <span className={styles.cardCamera}>{cameraNameOf(camera.nickname, camera.iccid)}</span>
            <span>
              {camera.card
                ? `${brandOf(camera.card.brand)} ending ${camera.card.last4}, expires ${String(camera.card.exp_month).padStart(2, '0')}/${camera.card.exp_year}`
                : 'No card'}
            </span>
            {camera.card_warning && (
              <span className={styles.warning}>
                <Chip tone={camera.card?.is_expired || !camera.card ? 'danger' : 'warning'}>
                  {camera.card?.is_expired ? 'Expired' : camera.card ? 'Expiring' : 'No card'}
                </Chip>{' '}
                {camera.card_warning}
              </span>
            )}
          </li>
        ))}
      </ul>
    </Card>
  );
}

function DetailsForm({ details }: { details: FarmBillingResponse['details'] }) {
  const save = useSaveBillingDetails();
  const [form, setForm] = useState<BillingDetailsBody>(() => ({
    name: details?.name ?? '',
    line1: details?.line1 ?? '',
    line2: details?.line2 ?? '',
    town: details?.town ?? '',
    postcode: details?.postcode ?? '',
    vat_number: details?.vat_number ?? '',
  }));
  const field = (key: keyof BillingDetailsBody) => ({
    value: form[key] ?? '',
    onChange: (event: { target: { value: string } }) => {
      save.reset();
      setForm({ ...form, [key]: event.target.value });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(form, {
      onSuccess: (answer) => {
        if (answer.details) {
          setForm({
            ...answer.details,
            line2: answer.details.line2 ?? '',
            vat_number: answer.details.vat_number ?? '',
          });
        }
      },
    });
  };
  return (
    <Card title="Billing address and VAT number">
      <p className={styles.muted}>
        Invoices raised from now on carry this name, address and VAT number. Invoices already issued
        stay as they were.
      </p>
      <form className={styles.detailsForm} onSubmit={submit} noValidate>
        <TextField label="Name on invoices" autoComplete="organization" {...field('name')} />
        <TextField label="Address line 1" autoComplete="address-line1" {...field('line1')} />
        <TextField
          label="Address line 2 (optional)"
          autoComplete="address-line2"
          {...field('line2')}
        />
        <TextField label="Town" autoComplete="address-level2" {...field('town')} />
        <TextField
          label="Postcode"
          autoComplete="postal-code"
          className={styles.short}
          {...field('postcode')}
        />
        <TextField
          label="VAT number (optional)"
          hint="For example, GB123456789"
          className={styles.short}
          {...field('vat_number')}
        />
        <div className={styles.formEnd}>
          <Button type="submit" isLoading={save.isPending}>
            Save for future invoices
          </Button>
          {save.isError && (
            <p role="alert" className={styles.error}>
              {errorMessage(save.error, 'Could not save, please try again.')}
            </p>
          )}
          {save.isSuccess && (
            <p role="status" className={styles.success}>
              Saved. Every camera&apos;s next invoice carries this address
              {save.data.details?.vat_number ? ' and VAT number' : ''}.
            </p>
          )}
        </div>
      </form>
    </Card>
  );
}
