import { useId, useState } from 'react';
import type { PricingTablePlan } from '@farmcam/contract';
import { PlanFeatureList } from '../../../components/billing/plan-feature-list.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { formatMoney } from '@farmcam/contract/rules';
import { usePricingTable } from '../api/get-pricing-table.ts';
import { useStartCheckout } from '../api/start-checkout.ts';
import styles from './local-pricing-table.module.css';

type Interval = 'month' | 'year';

/**
 * Our own pricing table, drawn from the catalogue (local billing engine): the region's plans in its
 * currency, monthly or annual, each with a Subscribe button that opens the hosted checkout, the
 * way Stripe's table does.
 */
export function LocalPricingTable(props: {
  pricingTableId: string;
  iccid: string;
  email: string;
  customerSessionSecret: string | null;
}) {
  const table = usePricingTable(props.pricingTableId);
  const checkout = useStartCheckout();
  const [interval, setInterval] = useState<Interval>('month');
  const [chosenPriceId, setChosenPriceId] = useState<string | null>(null);
  const intervalName = useId();

  if (table.isPending) return <Loader label="Loading plans…" />;
  if (table.isError) {
    return (
      <p className={styles.error} role="alert">
        {errorMessage(table.error, 'The plans could not be loaded. Please try again.')}
      </p>
    );
  }

  const plans = table.data.plans.filter((plan) => plan.interval === interval);
  const subscribe = (plan: PricingTablePlan) => {
    setChosenPriceId(plan.price_id);
    checkout.mutate(
      {
        pricing_table_id: props.pricingTableId,
        price_id: plan.price_id,
        client_reference_id: props.iccid,
        customer_email: props.email,
        customer_session_client_secret: props.customerSessionSecret,
      },
      { onSuccess: ({ url }) => window.location.assign(url) },
    );
  };

  return (
    <div className={styles.table}>
      {table.data.is_solar && (
        <p className={styles.solarNote}>Solar SIM plans: priced for cameras on solar power.</p>
      )}
      <fieldset className={styles.intervals}>
        <legend className="visually-hidden">Billing interval</legend>
        {(['month', 'year'] as const).map((option) => (
          <label key={option} className={styles.interval}>
            <input
              type="radio"
              name={intervalName}
              value={option}
              checked={interval === option}
              onChange={() => setInterval(option)}
            />
            {option === 'month' ? 'Monthly' : 'Annually'}
          </label>
        ))}
      </fieldset>
      {checkout.isError && (
        <p className={styles.error} role="alert">
          {errorMessage(checkout.error, 'The checkout could not be opened. Please try again.')}
        </p>
      )}
      <ul className={styles.plans}>
        {plans.map((plan) => (
          <li key={plan.price_id} className={styles.plan}>
            <h3 className={styles.planName}>{plan.product_name}</h3>
            <p className={styles.price}>
              {formatMoney(plan.unit_amount, plan.currency)}
              <span className={styles.per}> per {plan.interval}</span>
            </p>
            <PlanFeatureList
              planName={plan.product_name}
              features={plan.features}
              className={styles.features}
            />
            <Button
              isFullWidth
              isLoading={checkout.isPending && chosenPriceId === plan.price_id}
              disabled={checkout.isPending || checkout.isSuccess}
              onClick={() => subscribe(plan)}
              aria-label={`Subscribe to ${plan.product_name}, ${formatMoney(plan.unit_amount, plan.currency)} per ${plan.interval}`}
            >
              Subscribe
            </Button>
          </li>
        ))}
      </ul>
      <p className={styles.note}>
        You pay on our secure checkout page. Plans reset on the 1st of each month.
      </p>
    </div>
  );
}
