import { useId } from 'react';
import type { SignalLocation } from '../signal-rating.ts';
import styles from './location-toggle.module.css';

const options: { value: SignalLocation; label: string }[] = [
  { value: 'outdoor', label: 'Outdoor' },
  { value: 'indoor', label: 'Indoor' },
];

export interface LocationToggleProps {
  value: SignalLocation;
  onChange: (location: SignalLocation) => void;
}

/**
 * The indoor/outdoor toggle (docs/requirements.md#screens): a pair of radio buttons, so arrow keys switch it and
 * screen readers announce the choice, drawn as a segmented control.
 */
export function LocationToggle({ value, onChange }: LocationToggleProps) {
  const name = useId();
  return (
    <fieldset className={styles.toggle}>
      <legend className={styles.legend}>Where will the camera be?</legend>
      <div className={styles.options}>
        {options.map((option) => (
          <label key={option.value} className={styles.option}>
            <input
              type="radio"
              name={name}
              value={option.value}
              checked={value === option.value}
              onChange={() => onChange(option.value)}
              className={styles.input}
            />
            <span className={styles.text}>{option.label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
