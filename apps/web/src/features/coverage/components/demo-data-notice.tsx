import styles from './coverage-notes.module.css';

/** The bundled dataset is invented: say so wherever its answers appear. */
export function DemoDataNotice() {
  return (
    <p className={styles.demo} role="note">
      <strong>Demo data.</strong> These addresses and signal levels are invented so you can try the
      checker. They are not real coverage.
    </p>
  );
}
