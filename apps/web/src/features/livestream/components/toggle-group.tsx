import type { ReactNode } from 'react';
import { classNames } from '../../../components/ui/class-names.ts';
import styles from './livestream-setup.module.css';

/** A labelled group of on/off buttons (the schedule's hours and days). */
export function ToggleGroup<T extends string | number>({
  legend,
  hint,
  options,
  selected,
  onToggle,
  layout = 'wrap',
}: {
  legend: string;
  hint?: ReactNode;
  options: { value: T; label: string; accessibleLabel?: string }[];
  selected: readonly T[];
  onToggle: (value: T) => void;
  layout?: 'wrap' | 'hours';
}) {
  return (
    <fieldset className={styles.fieldset}>
      <legend className={styles.legend}>{legend}</legend>
      {hint && <p className={styles.hint}>{hint}</p>}
      <div className={classNames(styles.toggles, layout === 'hours' && styles.hourToggles)}>
        {options.map((option) => {
          const isOn = selected.includes(option.value);
          return (
            <button
              key={String(option.value)}
              type="button"
              className={classNames(styles.toggle, isOn && styles.toggleOn)}
              aria-pressed={isOn}
              aria-label={option.accessibleLabel}
              onClick={() => onToggle(option.value)}
            >
              {option.label}
            </button>
          );
        })}
      </div>
    </fieldset>
  );
}

/** A labelled group of radio choices shown as buttons. */
export function ChoiceGroup<T extends string | number>({
  legend,
  name,
  options,
  value,
  onChange,
}: {
  legend: string;
  name: string;
  options: { value: T; label: ReactNode; isDisabled?: boolean }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset className={styles.fieldset}>
      <legend className={styles.legend}>{legend}</legend>
      <div className={styles.choices}>
        {options.map((option) => (
          <label
            key={String(option.value)}
            className={classNames(
              styles.choice,
              option.value === value && styles.choiceOn,
              option.isDisabled && styles.choiceDisabled,
            )}
          >
            <input
              type="radio"
              name={name}
              value={String(option.value)}
              checked={option.value === value}
              disabled={option.isDisabled}
              onChange={() => onChange(option.value)}
            />
            <span>{option.label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
