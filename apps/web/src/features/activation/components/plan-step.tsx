import { useEffect } from 'react';
import type { ActivationConfigResponse, ActivationRegion } from '@farmcam/contract';
import { Loader } from '../../../components/ui/spinner.tsx';
import { SimUnavailableError, usePricingTableSetup } from '../pricing-table-setup.ts';
import { LocalPricingTable } from './local-pricing-table.tsx';
import { StripePricingTable } from './stripe-pricing-table.tsx';
import styles from './activation.module.css';

const regionNames: Record<ActivationRegion, string> = { uk: 'United Kingdom', ie: 'Ireland' };

/** Step 5 (docs/requirements.md#screens): the pricing table the solar check names, for this SIM and customer. */
export function PlanStep(props: {
  config: ActivationConfigResponse;
  iccid: string;
  email: string;
  location: ActivationRegion;
  isSignedIn: boolean;
  onSimUnavailable: (message: string) => void;
}) {
  const { config, iccid, email, location, isSignedIn, onSimUnavailable } = props;
  const setup = usePricingTableSetup({
    iccid,
    email,
    location,
    isSignedIn,
    fallbackTables: config.fallback_pricing_tables,
  });
  const failure = setup.error instanceof SimUnavailableError ? setup.error.message : null;
  useEffect(() => {
    if (failure) onSimUnavailable(failure);
  }, [failure, onSimUnavailable]);

  if (setup.isPending || failure) return <Loader label="Loading plans…" />;
  if (setup.isError) {
    return (
      <p className={styles.errorBox} role="alert">
        The plans could not be loaded. Please try again.
      </p>
    );
  }
  const { pricingTableId, customerSessionSecret } = setup.data;
  return (
    <>
      <p className={styles.summary}>
        SIM <strong>{iccid}</strong> · {regionNames[location]} · {email}
      </p>
      {config.provider === 'stripe' && config.publishable_key ? (
        <StripePricingTable
          pricingTableId={pricingTableId}
          publishableKey={config.publishable_key}
          iccid={iccid}
          email={email}
          customerSessionSecret={customerSessionSecret}
        />
      ) : (
        <LocalPricingTable
          key={pricingTableId}
          pricingTableId={pricingTableId}
          iccid={iccid}
          email={email}
          customerSessionSecret={customerSessionSecret}
        />
      )}
    </>
  );
}
