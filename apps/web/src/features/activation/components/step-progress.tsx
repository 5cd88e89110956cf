import { classNames } from '../../../components/ui/class-names.ts';
import type { WizardStep } from '../wizard-state.ts';
import { stepTitles } from './step-titles.ts';
import styles from './activation.module.css';

/** "Step n of 5" and a marker per step, named for screen readers, done ones marked so. */
export function StepProgress({ step }: { step: WizardStep }) {
  return (
    <div className={styles.progress}>
      <p className={styles.stepCount}>Step {step + 1} of 5</p>
      <ol className={styles.steps} aria-label="Activation steps">
        {([0, 1, 2, 3, 4] as const).map((index) => (
          <li
            key={index}
            className={classNames(
              styles.stepMarker,
              index < step && styles.stepDone,
              index === step && styles.stepCurrent,
            )}
            aria-current={index === step ? 'step' : undefined}
          >
            <span className="visually-hidden">
              {stepTitles[index]}
              {index < step ? ' (done)' : ''}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}
