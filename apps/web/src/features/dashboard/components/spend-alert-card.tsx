import type { SpendAlertResponse } from '@farmcam/contract';
import { formatMoney } from '@farmcam/contract/rules';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import styles from './spend-alert-card.module.css';

const spendAlertKey = ['account', 'spend-alert'] as const;

/** "45" or "45.50" from pence; empty for none. */
const poundsText = (minor: number | null) =>
  minor === null ? '' : (minor / 100).toFixed(minor % 100 === 0 ? 0 : 2);

/** Pence from what the owner typed ("45", "£45.50"); null for empty; NaN when it is not money. */
function parsePounds(text: string): number | null {
  const cleaned = text.replace(/[£,\s]/g, '');
  if (cleaned === '') return null;
  if (!/^\d+(\.\d{1,2})?$/.test(cleaned)) return Number.NaN;
  return Math.round(Number(cleaned) * 100);
}

/**
 * The account's monthly spend alert (decision 095), for the owner on the Account page: an amount
 * in £, and what this month's invoices come to (raised, and renewals to come) as the server says.
 */
export function SpendAlertCard() {
  const queryClient = useQueryClient();
  const alert = useQuery({
    queryKey: spendAlertKey,
    queryFn: ({ signal }) => apiRequest<SpendAlertResponse>('/api/account/spend-alert', { signal }),
  });
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (amountMinor: number | null) =>
      apiRequest<SpendAlertResponse>('/api/account/spend-alert', {
        method: 'PUT',
        body: { amountMinor },
      }),
    onSuccess: (answer) => {
      queryClient.setQueryData(spendAlertKey, answer);
      setDraft(null);
      toast.success(
        answer.amountMinor === null
          ? 'Spend alert removed'
          : `We will e-mail you when this month's bill reaches ${formatMoney(answer.amountMinor, answer.currency)}`,
      );
    },
  });

  if (alert.isPending) return null;
  if (alert.isError) {
    return (
      <Card title="Monthly spend alert">
        <p role="alert">{errorMessage(alert.error, 'Could not load the spend alert')}</p>
      </Card>
    );
  }
  const data = alert.data;
  const money = (minor: number) => formatMoney(minor, data.currency);
  const value = draft ?? poundsText(data.amountMinor);

  function submit(event: FormEvent) {
    event.preventDefault();
    const amountMinor = parsePounds(value);
    if (Number.isNaN(amountMinor) || (amountMinor !== null && amountMinor < 100)) {
      setError('Enter an amount in pounds, at least £1, e.g. 150 or 150.50.');
      return;
    }
    setError(null);
    save.mutate(amountMinor);
  }

  return (
    <Card title="Monthly spend alert" className={styles.card}>
      <p className={styles.figures}>
        This month your invoices come to <strong>{money(data.expectedMinor)}</strong>:{' '}
        {money(data.raisedMinor)} already invoiced and {money(data.upcomingMinor)} in renewals due
        before the month ends.
      </p>
      <form className={styles.form} onSubmit={submit} aria-label="Monthly spend alert" noValidate>
        <TextField
          label="E-mail me when this month's bill reaches (£)"
          hint="Leave it empty for no alert. We e-mail once a month; nothing is stopped."
          inputMode="decimal"
          autoComplete="off"
          value={value}
          error={error ?? (save.isError ? errorMessage(save.error, 'Could not save') : null)}
          onChange={(event) => setDraft(event.target.value)}
        />
        <Button type="submit" variant="secondary" isLoading={save.isPending}>
          Save spend alert
        </Button>
      </form>
      {data.alertSentAt && data.amountMinor !== null && (
        <p className={styles.sent} role="status">
          This month has reached {money(data.amountMinor)}: we e-mailed you.
        </p>
      )}
    </Card>
  );
}
