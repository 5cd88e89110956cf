import { useId } from 'react';
import styles from './coverage-notes.module.css';

/** Shown when the signal is usable outdoors but not indoors (SignalBoosterRequiredForInside). */
export function BoosterAdvice() {
  const titleId = useId();
  return (
    <div className={styles.booster} role="note" aria-labelledby={titleId}>
      <p id={titleId} className={styles.noteTitle}>
        Signal booster advised for indoors
      </p>
      <p className={styles.noteText}>
        The signal here is usable outdoors but not inside buildings. If the camera goes inside a
        barn or shed, fit a signal booster with an outdoor antenna, or mount the camera outside.
      </p>
    </div>
  );
}
