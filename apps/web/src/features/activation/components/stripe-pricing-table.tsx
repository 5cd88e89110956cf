import { useEffect, useState } from 'react';
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import styles from './activation.module.css';

export const stripePricingTableScript = 'https://js.stripe.com/v3/pricing-table.js';

type StripePricingTableProps = DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement> & {
  'pricing-table-id': string;
  'publishable-key': string;
  'client-reference-id': string;
  'customer-email'?: string;
  'customer-session-client-secret'?: string;
};

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'stripe-pricing-table': StripePricingTableProps;
    }
  }
}

let scriptLoad: Promise<void> | undefined;

/** Stripe's pricing table element, loaded once from Stripe (the CSP allows exactly this script). */
function loadPricingTableScript(): Promise<void> {
  scriptLoad ??= new Promise<void>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = stripePricingTableScript;
    script.async = true;
    script.onload = () => resolve();
    script.onerror = () => {
      scriptLoad = undefined;
      script.remove();
      reject(new Error('Stripe’s pricing table could not be loaded'));
    };
    document.head.append(script);
  });
  return scriptLoad;
}

/**
 * docs/requirements.md#activation-wizard, step 5 with Stripe: its pricing table, given the client reference (the ICCID), the
 * customer's e-mail and a customer session secret when there is one. Stripe refuses both an e-mail
 * and a session (the session's customer has the e-mail), so the e-mail goes only without one.
 */
export function StripePricingTable(props: {
  pricingTableId: string;
  publishableKey: string;
  iccid: string;
  email: string;
  customerSessionSecret: string | null;
}) {
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    let isCurrent = true;
    loadPricingTableScript().then(
      () => isCurrent && setState('ready'),
      () => isCurrent && setState('failed'),
    );
    return () => {
      isCurrent = false;
    };
  }, []);

  if (state === 'failed') {
    return (
      <p className={styles.errorBox} role="alert">
        The plans could not be loaded. Check your connection and try again.
      </p>
    );
  }
  return (
    <stripe-pricing-table
      pricing-table-id={props.pricingTableId}
      publishable-key={props.publishableKey}
      client-reference-id={props.iccid}
      {...(props.customerSessionSecret
        ? { 'customer-session-client-secret': props.customerSessionSecret }
        : { 'customer-email': props.email })}
    />
  );
}
