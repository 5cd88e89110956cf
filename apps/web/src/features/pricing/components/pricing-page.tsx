import { useState } from 'react';
import { Link, useParams, useSearchParams } from '../../../lib/router/index.ts';
import { PlanFeatureList } from '../../../components/billing/plan-feature-list.tsx';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths, type Region } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { cameraNameOf, formatMoney } from '@farmcam/contract/rules';
import { intervalWord } from '../../../lib/interval-word.ts';
import { useRenewSubscription } from '../api/renew-subscription.ts';
import { useRenewalPlans } from '../api/renewal-plans.ts';
import styles from './pricing-page.module.css';

const regions: { value: Region; label: string }[] = [
  { value: 'uk', label: 'United Kingdom' },
  { value: 'ie', label: 'Ireland' },
];

/**
 * No active subscription (/pricing/{iccid}/{customerId}): the resubscribe form. The region comes
 * from the query parameter location (default uk); paying happens on the provider's checkout.
 */
export function PricingPage() {
  const { iccid = '', customerId = '' } = useParams();
  const [searchParams, setSearchParams] = useSearchParams();
  const location: Region = searchParams.get('location') === 'ie' ? 'ie' : 'uk';
  const plans = useRenewalPlans(customerId, iccid, location);
  const renew = useRenewSubscription();
  const [chosenPlanId, setChosenPlanId] = useState('');
  const [failure, setFailure] = useState('');

  const submit = () => {
    setFailure('');
    renew.mutate(
      { customerId, iccid, priceId: chosenPlanId },
      {
        onSuccess: ({ url }) => window.location.assign(url),
        onError: (error) =>
          setFailure(errorMessage(error, 'Could not start the renewal. Please try again.')),
      },
    );
  };

  return (
    <Card title="Renew your streaming plan">
      {plans.isPending ? (
        <Loader label="Loading plans…" />
      ) : plans.isError ? (
        <p role="alert" className={styles.error}>
          {errorMessage(plans.error, 'Could not load the plans.')}
        </p>
      ) : !plans.data.can_renew ? (
        <>
          <p role="status">{plans.data.reason}</p>
          <Link className={buttonClassName({ variant: 'secondary' })} to={paths.dashboard.href()}>
            Back to dashboard
          </Link>
        </>
      ) : (
        <form
          className={styles.form}
          onSubmit={(event) => {
            event.preventDefault();
            if (chosenPlanId) submit();
          }}
        >
          <p>
            <strong>{cameraNameOf(plans.data.nickname, iccid)}</strong> (SIM {iccid}). Choose a plan
            to start a new subscription; you pay on the secure payment page.
          </p>
          <fieldset className={styles.group}>
            <legend>Region</legend>
            <div className={styles.regions}>
              {regions.map((region) => (
                <label key={region.value} className={`${styles.option} ${styles.choice}`}>
                  <input
                    type="radio"
                    name="location"
                    value={region.value}
                    checked={location === region.value}
                    onChange={() => {
                      setChosenPlanId('');
                      setSearchParams({ location: region.value }, { replace: true });
                    }}
                  />
                  {region.label}
                </label>
              ))}
            </div>
          </fieldset>
          <fieldset className={styles.group}>
            <legend>Plan</legend>
            <div className={styles.plans}>
              {plans.data.plans.map((plan) => (
                // The features sit beside the label, not in it (a label holds no list); the
                // radio names them as its description.
                <div key={plan.id} className={styles.option}>
                  <label className={styles.choice}>
                    <input
                      type="radio"
                      name="plan"
                      value={plan.id}
                      checked={chosenPlanId === plan.id}
                      onChange={() => setChosenPlanId(plan.id)}
                      aria-describedby={`features-${plan.id}`}
                    />
                    <span className={styles.planText}>
                      <strong>{plan.product_name}</strong>
                      <span>
                        {formatMoney(plan.unit_amount, plan.currency)} /{' '}
                        {intervalWord(plan.recurring.interval)}
                        {plan.amountSaved > 0 &&
                          ` · save ${formatMoney(plan.amountSaved, plan.currency)}`}
                      </span>
                    </span>
                  </label>
                  <PlanFeatureList
                    id={`features-${plan.id}`}
                    planName={plan.product_name}
                    features={plan.features}
                    className={styles.features}
                  />
                </div>
              ))}
            </div>
          </fieldset>
          {failure && (
            <p role="alert" className={styles.error}>
              {failure}
            </p>
          )}
          <Button type="submit" disabled={!chosenPlanId} isLoading={renew.isPending}>
            Continue to payment
          </Button>
        </form>
      )}
    </Card>
  );
}
