import { useId } from 'react';
import type { InputHTMLAttributes } from 'react';
import styles from './text-field.module.css';
import { classNames } from './class-names.ts';

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  /** Help shown under the field before any error. */
  hint?: string;
  /** Shown under the field and announced with it; marks the field invalid. */
  error?: string | null;
  /** Something else that describes the field (e.g. a live character count), by its element's id. */
  describedById?: string;
}

export function TextField({
  label,
  hint,
  error,
  describedById,
  className,
  ...inputProps
}: TextFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = classNames(hint && hintId, describedById, error && errorId) || undefined;

  return (
    <div className={classNames(styles.field, className)}>
      <label className={styles.label} htmlFor={id}>
        {label}
      </label>
      {hint && (
        <p id={hintId} className={styles.hint}>
          {hint}
        </p>
      )}
      <input
        {...inputProps}
        id={id}
        className={classNames(
          styles.input,
          (error || inputProps['aria-invalid']) && styles.invalid,
        )}
        aria-invalid={error ? true : inputProps['aria-invalid']}
        aria-describedby={describedBy}
      />
      {error && (
        <p id={errorId} className={styles.error}>
          {error}
        </p>
      )}
    </div>
  );
}
