import type { PaymentMethod } from '@farmcam/contract';
import { Chip } from '../../../components/ui/chip.tsx';
import styles from './subscription-page.module.css';

/** docs/requirements.md#data: mastercard is shown as Mastercard, anything else as Visa. */
export const cardBrandName = (brand: string) => (brand === 'mastercard' ? 'Mastercard' : 'Visa');

export function PaymentMethodsList({ methods }: { methods: PaymentMethod[] }) {
  if (methods.length === 0) {
    return <p className={styles.note}>No card on file. Add one with Update payment details.</p>;
  }
  return (
    <ul className={styles.cards}>
      {methods.map((method) => (
        <li key={method.id} className={styles.cardRow}>
          <span className={styles.brand}>{cardBrandName(method.card_brand)}</span>
          <span>
            <span className="visually-hidden">ending </span>•••• {method.last4}
          </span>
          <span className={method.is_expired ? styles.expired : styles.note}>
            Expires {String(method.exp_month).padStart(2, '0')}/{method.exp_year}
          </span>
          <span className={styles.cardTags}>
            {method.is_default && <Chip tone="neutral">Default</Chip>}
            {method.is_expired && <Chip tone="danger">Expired</Chip>}
          </span>
        </li>
      ))}
    </ul>
  );
}
