import { Link, useSearchParams } from '../../../lib/router/index.ts';
import { buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { paths } from '../../../config/paths.ts';
import type { OrderStatusResponse } from '@farmcam/contract';
import { ApiError } from '../../../lib/api-client.ts';
import { useActivationConfig } from '../api/get-activation-config.ts';
import { useOrder } from '../api/get-order.ts';
import styles from './order-confirmation-page.module.css';

/** Shown until the configured addresses arrive (and if they cannot be fetched). */
const fallbackHelp = {
  support_email: 'support@farmcam.example',
  setup_guide_url: 'https://www.example.com/setup-guide',
};

const activatedMessage = 'Your Multi-network Streaming plan has been activated.';

const leadOf: Record<OrderStatusResponse['status'], string> = {
  activated: activatedMessage,
  paid: 'Your payment is received and your Multi-network Streaming plan is being activated.',
  pending: 'We have not received the payment for this order yet.',
  refused:
    'This SIM was activated by someone else first, so this order did not go ahead. Your payment has been given back.',
};

/**
 * The thank-you page (docs/requirements.md#screens), at /order-confirmation: where the hosted checkout returns after
 * payment. The order in the address is looked up, and only what the server knows is shown: an
 * order that does not exist is "not found", never "activated", and no text of the address is put
 * on the page (docs/decisions/027). Without an order (Stripe's pricing table returns with its own
 * session id only) the spec's message is shown.
 */
export function OrderConfirmationPage() {
  const [searchParams] = useSearchParams();
  const orderId = searchParams.get('order');
  const order = useOrder(orderId);
  const config = useActivationConfig();
  const help = config.data ?? fallbackHelp;

  if (orderId !== null && order.isPending) {
    return (
      <Card className={styles.card}>
        <p role="status">Checking your order…</p>
      </Card>
    );
  }
  if (orderId !== null && !order.data) {
    const isMissing =
      order.error instanceof ApiError && [400, 404].includes(order.error.status as number);
    return (
      <Card className={styles.card}>
        <p className={styles.lead} role="alert">
          {isMissing ? 'We could not find this order.' : 'We could not check this order just now.'}
        </p>
        <p>
          {isMissing
            ? 'Check the link, or open the e-mail we sent when you paid.'
            : 'Please reload the page in a moment.'}{' '}
          Questions? E-mail <a href={`mailto:${help.support_email}`}>{help.support_email}</a>
        </p>
        <div className={styles.actions}>
          <Link to={paths.activate.href()} className={buttonClassName({})}>
            Activate a camera
          </Link>
        </div>
      </Card>
    );
  }
  const status = order.data?.status ?? 'activated';

  return (
    <Card className={styles.card}>
      <p className={styles.lead}>{leadOf[status]}</p>
      {order.data && (
        <dl className={styles.details}>
          <div>
            <dt>Plan</dt>
            <dd>{order.data.product}</dd>
          </div>
          <div>
            <dt>Order</dt>
            <dd className={styles.reference}>{order.data.order}</dd>
          </div>
        </dl>
      )}
      {(status === 'activated' || status === 'paid') && (
        <>
          <p>
            Your camera should come online within a few hours. If it is not online by then,
            power-cycle it: switch it off, wait ten seconds and switch it on again.
          </p>
          <p>We have e-mailed you a link to sign in and see the camera in your portal.</p>
        </>
      )}
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
