import styles from './spinner.module.css';
import { classNames } from './class-names.ts';

/** A decorative spinner; pair it with text (see Loader) so its meaning is announced. */
export function Spinner({ size = 'md' }: { size?: 'sm' | 'md' | 'lg' }) {
  return <span className={classNames(styles.spinner, styles[size])} aria-hidden="true" />;
}

/** A spinner with a visible label, announced to screen readers as a status. */
export function Loader({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className={styles.loader} role="status">
      <Spinner size="lg" />
      <span>{label}</span>
    </div>
  );
}
