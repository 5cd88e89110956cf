import type { FormEvent } from 'react';
import { TextField } from '../../../components/ui/text-field.tsx';
import { StepActions } from './step-actions.tsx';
import type { StepProps } from './step-props.ts';
import styles from './activation.module.css';

/** Step 1: the e-mail the portal link goes to (pre-filled for a signed-in customer). */
export function EmailStep({ state, dispatch }: Omit<StepProps, 'onBack'>) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    dispatch({ type: 'emailSubmitted' });
  };
  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      <p className={styles.intro}>
        Activate a Farmcam SIM and choose its streaming plan. We will e-mail you a link to your
        portal once it is active.
      </p>
      <TextField
        label="E-mail address"
        name="email"
        type="email"
        inputMode="email"
        autoComplete="email"
        autoCapitalize="none"
        spellCheck={false}
        value={state.email}
        onChange={(event) => dispatch({ type: 'emailChanged', email: event.target.value })}
        error={state.emailError}
      />
      <StepActions next={{ isDisabled: state.email.trim() === '' }} />
    </form>
  );
}
