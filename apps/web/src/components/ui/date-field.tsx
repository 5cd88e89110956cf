import { formatDay } from '@farmcam/contract/rules';
import { useId, useState } from 'react';
import type { FocusEvent } from 'react';
import { classNames } from './class-names.ts';
import styles from './date-field.module.css';

/**
 * What a DateField reports while its boxes hold something that is not a date yet (a day alone,
 * 31 2 2026): forms refuse to send it, and the field says why under itself.
 */
export const unfinishedDate = 'unfinished';

interface DateParts {
  day: string;
  month: string;
  year: string;
}

const emptyParts: DateParts = { day: '', month: '', year: '' };

function partsOf(isoDay: string): DateParts {
  const match = isoDay.match(/^(\d{4})-(\d{2})-(\d{2})$/);
  if (!match) return emptyParts;
  return { day: String(Number(match[3])), month: String(Number(match[2])), year: match[1]! };
}

/** The day the boxes name (YYYY-MM-DD), '' when all are empty, or what is wrong with them. */
export function readDateParts(
  parts: DateParts,
  limits: { min?: string | undefined; max?: string | undefined } = {},
): { value: string } | { problem: string } {
  const day = parts.day.trim();
  const month = parts.month.trim();
  const year = parts.year.trim();
  if (day === '' && month === '' && year === '') return { value: '' };
  const missing = [day === '' && 'day', month === '' && 'month', year === '' && 'year'].filter(
    Boolean,
  );
  if (missing.length > 0) {
    return { problem: `The date must include a ${missing.join(' and ')}` };
  }
  if (!/^\d{4}$/.test(year)) return { problem: 'The year must have 4 numbers, like 2026' };
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const isReal =
    /^\d{1,2}$/.test(day) &&
    /^\d{1,2}$/.test(month) &&
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day);
  if (!isReal) return { problem: 'Enter a real date, for example 27 3 2026' };
  const value = date.toISOString().slice(0, 10);
  if (limits.min && value < limits.min) {
    return { problem: `Enter a date on or after ${formatDay(limits.min)}` };
  }
  if (limits.max && value > limits.max) {
    return { problem: `Enter a date on or before ${formatDay(limits.max)}` };
  }
  return { value };
}

export interface DateFieldProps {
  label: string;
  /** Shown under the label; by default an example in UK order. */
  hint?: string;
  /** YYYY-MM-DD, '' for none, or `unfinishedDate`. */
  value: string;
  onChange: (value: string) => void;
  min?: string | undefined;
  max?: string | undefined;
  /** Say what is wrong now (the form was sent), not only once the field is left. */
  showError?: boolean;
  className?: string;
}

/**
 * A date typed day, month, year in three boxes, as GOV.UK asks for dates (decision 115): the UK
 * order whatever the browser's language, where `<input type="date">` follows the browser (an
 * American browser would ask for month first).
 */
export function DateField({
  label,
  hint = 'For example, 27 3 2026',
  value,
  onChange,
  min,
  max,
  showError = false,
  className,
}: DateFieldProps) {
  const id = useId();
  const [parts, setParts] = useState<DateParts>(() => partsOf(value));
  const [isLeft, setIsLeft] = useState(false);
  const [seenValue, setSeenValue] = useState(value);
  const reading = readDateParts(parts, { min, max });

  // A value set from outside (a form reset, a date chosen elsewhere) fills the boxes again;
  // what is being typed is kept while it is not a date yet. Adjusted while rendering, as
  // React advises for state that follows a prop.
  if (value !== seenValue) {
    setSeenValue(value);
    const shown = 'value' in reading ? reading.value : unfinishedDate;
    if (value !== shown && value !== unfinishedDate) setParts(partsOf(value));
  }

  function change(part: keyof DateParts, text: string) {
    const next = { ...parts, [part]: text.replace(/\D/g, '') };
    setParts(next);
    const read = readDateParts(next, { min, max });
    onChange('value' in read ? read.value : unfinishedDate);
  }

  const problem = 'problem' in reading && (isLeft || showError) ? reading.problem : null;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const box = (part: keyof DateParts, name: string, size: 'short' | 'long') => (
    <div className={styles.part}>
      <label htmlFor={`${id}-${part}`} className={styles.partLabel}>
        {name}
      </label>
      <input
        id={`${id}-${part}`}
        className={classNames(styles.input, styles[size], problem && styles.invalid)}
        inputMode="numeric"
        maxLength={size === 'long' ? 4 : 2}
        autoComplete="off"
        value={parts[part]}
        aria-invalid={problem ? true : undefined}
        onChange={(event) => change(part, event.target.value)}
      />
    </div>
  );

  return (
    <fieldset
      className={classNames(styles.field, className)}
      aria-describedby={classNames(hintId, problem && errorId)}
      onBlur={(event: FocusEvent<HTMLFieldSetElement>) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setIsLeft(true);
      }}
    >
      <legend className={styles.legend}>{label}</legend>
      <p id={hintId} className={styles.hint}>
        {hint}
      </p>
      <div className={styles.parts}>
        {box('day', 'Day', 'short')}
        {box('month', 'Month', 'short')}
        {box('year', 'Year', 'long')}
      </div>
      {problem && (
        <p id={errorId} className={styles.error}>
          {problem}
        </p>
      )}
    </fieldset>
  );
}
