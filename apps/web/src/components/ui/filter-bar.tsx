import { useId } from 'react';
import type { ReactNode } from 'react';
import { classNames } from './class-names.ts';
import { DateField, unfinishedDate } from './date-field.tsx';
import styles from './filter-bar.module.css';

/**
 * A list's filters, one look for every list that has them (the Activity and the Billing page's
 * invoices): a form of labelled choices that sends nothing itself, since each change is applied
 * (and kept in the address) as it is made.
 */
export function FilterBar({
  label,
  className,
  children,
}: {
  /** The form's accessible name, e.g. "Filter the invoices". */
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <form
      className={classNames(styles.filters, className)}
      aria-label={label}
      onSubmit={(event) => event.preventDefault()}
    >
      {children}
    </form>
  );
}

/** A labelled choice: the first option is "no filter" (value ''), the others the list's. */
export function FilterSelect({
  label,
  value,
  anyLabel,
  options,
  onChange,
}: {
  label: string;
  value: string;
  /** What the empty choice says, e.g. "All cameras". */
  anyLabel: string;
  options: readonly { value: string; label: string }[];
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        {label}
      </label>
      <select
        id={id}
        className={styles.control}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      >
        <option value="">{anyLabel}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * From and To, typed day, month and year whatever the browser's language (decision 115); a date
 * still being typed changes nothing, and each bounds the other.
 */
export function FilterDateRange({
  from,
  to,
  onChange,
}: {
  from: string | undefined;
  to: string | undefined;
  onChange: (which: 'from' | 'to', value: string) => void;
}) {
  return (
    <>
      <DateField
        label="From"
        className={styles.dateField}
        value={from ?? ''}
        max={to}
        onChange={(value) => {
          if (value !== unfinishedDate) onChange('from', value);
        }}
      />
      <DateField
        label="To"
        className={styles.dateField}
        value={to ?? ''}
        min={from}
        onChange={(value) => {
          if (value !== unfinishedDate) onChange('to', value);
        }}
      />
    </>
  );
}
