import type { EligiblePlan, PlanChangePreview } from '@farmcam/contract';
import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { formatMoney } from '@farmcam/contract/rules';
import { intervalWord } from '../../../lib/interval-word.ts';
import { usePlanChangePreview } from '../api/preview-plan-change.ts';
import styles from './subscription-page.module.css';

/** Whether this is an upgrade, a downgrade or a switch: the server says which (decision 054). */
export function changeSentence(plan: EligiblePlan): string {
  const allowance = `${plan.data_allowance_gb} GB of data a month`;
  if (plan.change === 'upgrade') return `Upgrade to ${plan.product_name}: ${allowance}.`;
  if (plan.change === 'downgrade') {
    return `Downgrade to ${plan.product_name}: ${allowance}, less than your current plan.`;
  }
  return `Switch to ${plan.product_name}: ${allowance}, the same as your current plan.`;
}

/**
 * The spec's "Yes", saying what it does with the amount the server's preview charges now
 * (decision 115): "Yes, switch and pay £0.78".
 */
export function confirmLabel(preview: Pick<PlanChangePreview, 'amount_due' | 'currency'>): string {
  return preview.amount_due > 0
    ? `Yes, switch and pay ${formatMoney(preview.amount_due, preview.currency)}`
    : 'Yes, switch: nothing to pay now';
}

/**
 * Switch plan confirmation (docs/requirements.md#screens, #states): the plan's name, price and interval, and what is
 * charged now (pro-rata). Yes switches; Cancel or completion closes it.
 */
export function SwitchPlanModal({
  customerId,
  plan,
  isSwitching,
  onConfirm,
  onClose,
}: {
  customerId: string;
  plan: EligiblePlan | null;
  isSwitching: boolean;
  onConfirm: (plan: EligiblePlan) => void;
  onClose: () => void;
}) {
  const preview = usePlanChangePreview(customerId, plan?.id ?? null);
  return (
    <Modal isOpen={plan !== null} onClose={onClose} title="Switch plan confirmation">
      {plan && (
        <>
          <p className={styles.changeKind}>{changeSentence(plan)}</p>
          <dl className={styles.summary}>
            <dt>Plan</dt>
            <dd>{plan.product_name}</dd>
            <dt>Price</dt>
            <dd>{formatMoney(plan.unit_amount, plan.currency)}</dd>
            <dt>Interval</dt>
            <dd>{plan.recurring.interval === 'month' ? 'Monthly' : 'Annually'}</dd>
          </dl>
          <div className={styles.charge} aria-live="polite">
            {preview.isPending ? (
              <Loader label="Working out the charge…" />
            ) : preview.isError ? (
              <p role="alert" className={styles.error}>
                {errorMessage(preview.error, 'Could not work out the charge for this switch.')}
              </p>
            ) : (
              <>
                <p>
                  Charged now:{' '}
                  <strong>{formatMoney(preview.data.amount_due, preview.data.currency)}</strong>
                  {preview.data.credit > 0 && (
                    <>
                      {' '}
                      (a credit of {formatMoney(preview.data.credit, preview.data.currency)} goes to
                      your next invoice)
                    </>
                  )}
                </p>
                <p className={styles.note}>
                  {preview.data.amount_due > 0
                    ? 'The switch happens now. You pay the difference for the rest of this billing period (pro-rata), then '
                    : 'The switch happens now, then you pay '}
                  {formatMoney(plan.unit_amount, plan.currency)} a{' '}
                  {intervalWord(plan.recurring.interval)}.
                </p>
              </>
            )}
          </div>
          <div className={styles.modalActions}>
            <Button variant="secondary" onClick={onClose} disabled={isSwitching}>
              Cancel
            </Button>
            <Button
              onClick={() => onConfirm(plan)}
              isLoading={isSwitching}
              disabled={!preview.isSuccess}
            >
              {preview.isSuccess ? confirmLabel(preview.data) : 'Yes'}
            </Button>
          </div>
        </>
      )}
    </Modal>
  );
}
