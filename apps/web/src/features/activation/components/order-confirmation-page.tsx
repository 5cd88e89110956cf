import { Link, useSearchParams } from 'react-router';
import { buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { paths } from '../../../config/paths.ts';
import { useActivationConfig } from '../api/get-activation-config.ts';
import styles from './order-confirmation-page.module.css';

/** Shown until the configured addresses arrive (and if they cannot be fetched). */
const fallbackHelp = {
  support_email: 'support@farmcam.example',
  setup_guide_url: 'https://www.example.com/setup-guide',
};

/**
 * The thank-you page (spec §2), at /order-confirmation: where the hosted checkout returns after
 * payment. Shows the order and product from the query when present.
 */
export function OrderConfirmationPage() {
  const [searchParams] = useSearchParams();
  const order = searchParams.get('order') ?? searchParams.get('session_id');
  const product = searchParams.get('product');
  const config = useActivationConfig();
  const help = config.data ?? fallbackHelp;

  return (
    <Card className={styles.card}>
      <p className={styles.lead}>Your Multi-network Streaming plan has been activated.</p>
      {(order || product) && (
        <dl className={styles.details}>
          {product && (
            <div>
              <dt>Plan</dt>
              <dd>{product}</dd>
            </div>
          )}
          {order && (
            <div>
              <dt>Order</dt>
              <dd className={styles.reference}>{order}</dd>
            </div>
          )}
        </dl>
      )}
      <p>
        Your camera should come online within a few hours. If it is not online by then, power-cycle
        it: switch it off, wait ten seconds and switch it on again.
      </p>
      <p>We have e-mailed you a link to sign in and see the camera in your portal.</p>
      <div className={styles.actions}>
        <Link to={paths.login.href()} className={buttonClassName({})}>
          Go to dashboard
        </Link>
        <Link to={paths.activate.href()} className={buttonClassName({ variant: 'secondary' })}>
          Activate another camera
        </Link>
      </div>
      <ul className={styles.links}>
        <li>
          <a href={help.setup_guide_url} target="_blank" rel="noreferrer">
            Camera setup guide<span className="visually-hidden"> (opens in a new tab)</span>
          </a>
        </li>
        <li>
          Questions? E-mail <a href={`mailto:${help.support_email}`}>{help.support_email}</a>
        </li>
      </ul>
    </Card>
  );
}
