import { useEffect, useRef } from 'react';
import type { ReactNode } from 'react';
import type { ActivationRegion } from '@farmcam/contract';
import { Button } from '../../../components/ui/button.tsx';
import { classNames } from '../../../components/ui/class-names.ts';
import { regionAdvanceDelayMs } from '../wizard-state.ts';
import type { StepProps } from './step-props.ts';
import styles from './activation.module.css';

const regions: { value: ActivationRegion; label: string }[] = [
  { value: 'uk', label: 'United Kingdom' },
  { value: 'ie', label: 'Ireland' },
];

/** Step 4: the region the plans are priced for; choosing one moves on by itself. */
export function RegionStep({
  state,
  dispatch,
  onBack,
  children,
}: StepProps & { children?: ReactNode }) {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const choose = (location: ActivationRegion) => {
    dispatch({ type: 'regionChosen', location });
    clearTimeout(timer.current);
    // docs/requirements.md#states: step 3 goes to step 4 after 100 ms, so the choice is seen to be taken.
    timer.current = setTimeout(() => dispatch({ type: 'planStepEntered' }), regionAdvanceDelayMs);
  };
  return (
    <div className={styles.form}>
      <p className={styles.intro}>Where will the camera be used? Plans are priced per region.</p>
      <div className={styles.regions} role="group" aria-label="Region">
        {regions.map((region) => (
          <button
            key={region.value}
            type="button"
            className={classNames(
              styles.region,
              state.location === region.value && styles.regionChosen,
            )}
            aria-pressed={state.location === region.value}
            onClick={() => choose(region.value)}
          >
            {region.label}
          </button>
        ))}
      </div>
      {children}
      {/* Next keeps the region already chosen (UK unless the link said otherwise): a choice moves
          on by itself, but a visitor happy with the preselected one needs a way on (decision 054). */}
      <div className={styles.actions}>
        <Button variant="secondary" onClick={onBack}>
          Back
        </Button>
        <Button
          onClick={() => {
            clearTimeout(timer.current);
            dispatch({ type: 'planStepEntered' });
          }}
        >
          Next
        </Button>
      </div>
    </div>
  );
}
