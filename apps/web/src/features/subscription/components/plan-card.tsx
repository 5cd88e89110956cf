import type { EligiblePlan } from '@farmcam/contract';
import { PlanFeatureList } from '../../../components/billing/plan-feature-list.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Chip } from '../../../components/ui/chip.tsx';
import { formatMoney } from '@farmcam/contract/rules';
import { intervalWord } from '../../../lib/interval-word.ts';
import styles from './subscription-page.module.css';

/** The badge of a plan card (docs/requirements.md#states): current plan, more data, better value, or none. */
export function planBadge(plan: EligiblePlan): string | null {
  if (plan.subscribed) return 'Current plan';
  if (plan.upgrade_data) return 'Upgrade for more data';
  if (plan.upgrade_value) return 'Upgrade for better value';
  return null;
}

export function PlanCard({
  plan,
  canSwitch,
  onSwitch,
}: {
  plan: EligiblePlan;
  canSwitch: boolean;
  onSwitch: (plan: EligiblePlan) => void;
}) {
  const badge = planBadge(plan);
  const headingId = `plan-${plan.id}`;
  return (
    <article
      className={plan.subscribed ? `${styles.plan} ${styles.current}` : styles.plan}
      aria-labelledby={headingId}
    >
      <div className={styles.planHeader}>
        <h3 id={headingId} className={styles.planName}>
          {plan.product_name}
        </h3>
        {badge && <Chip tone={plan.subscribed ? 'success' : 'highlight'}>{badge}</Chip>}
      </div>
      <p className={styles.price}>
        {formatMoney(plan.unit_amount, plan.currency)}
        <span className={styles.per}> / {intervalWord(plan.recurring.interval)}</span>
      </p>
      <p className={styles.billed}>
        {plan.recurring.interval === 'month' ? 'Billed Monthly' : 'Billed Annually'}
        {plan.amountSaved > 0 && <> · save {formatMoney(plan.amountSaved, plan.currency)} a year</>}
      </p>
      <PlanFeatureList
        planName={plan.product_name}
        features={plan.features}
        className={styles.features}
      />
      {!plan.subscribed && (
        <Button
          variant="secondary"
          isFullWidth
          disabled={!canSwitch}
          onClick={() => onSwitch(plan)}
          aria-describedby={headingId}
        >
          Switch plan
        </Button>
      )}
    </article>
  );
}
