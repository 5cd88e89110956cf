import { useId } from 'react';
import type { SignalAvailabilityAddress } from '@farmcam/contract';
import styles from './address-select.module.css';

export interface AddressSelectProps {
  addresses: SignalAvailabilityAddress[];
  /** The selected address's UPRN. */
  value: string;
  onChange: (uprn: string) => void;
}

/** The address selector of the signal result (docs/requirements.md#screens). */
export function AddressSelect({ addresses, value, onChange }: AddressSelectProps) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        Address
      </label>
      <select
        id={id}
        className={styles.select}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      >
        {addresses.map((address) => (
          <option key={address.UPRN} value={address.UPRN}>
            {address.AddressShortDescription}
          </option>
        ))}
      </select>
    </div>
  );
}
