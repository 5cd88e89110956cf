import type { FormEvent } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useValidateActivationCode } from '../api/validate-activation-code.ts';
import { useValidateIccid } from '../api/validate-iccid.ts';
import { isCodeComplete, needsLuhnWarning } from '../wizard-rules.ts';
import { HelpLink, StepActions } from './step-actions.tsx';
import type { StepProps } from './step-props.ts';
import styles from './activation.module.css';

/** Step 3: the code itself, checked by the server; a failed 4-letter code offers the ICCID. */
export function CodeStep({ state, dispatch, onBack, onHelp }: StepProps & { onHelp: () => void }) {
  const validateCode = useValidateActivationCode();
  const validateIccid = useValidateIccid();
  const codeType = state.codeType ?? '4-digits';
  const isFourLetters = codeType === '4-digits';
  const isPending = validateCode.isPending || validateIccid.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!isCodeComplete(codeType, state.code) || isPending) return;
    const handlers = {
      onSuccess: ({ iccid }: { iccid: string }) => dispatch({ type: 'validationSucceeded', iccid }),
      onError: (error: unknown) =>
        dispatch({
          type: 'validationFailed',
          message: errorMessage(error, 'The code could not be checked. Please try again.'),
        }),
    };
    if (isFourLetters) validateCode.mutate({ activationCode: state.code }, handlers);
    else validateIccid.mutate({ iccid: state.code }, handlers);
  };

  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      <TextField
        label={isFourLetters ? 'Activation code' : 'SIM number (ICCID)'}
        hint={
          isFourLetters ? 'The 4 letters, e.g. ABCD' : 'The 19 or 20 digits printed on the SIM card'
        }
        name="code"
        className={isFourLetters ? styles.codeField : styles.iccidField}
        inputMode={isFourLetters ? 'text' : 'numeric'}
        autoCapitalize={isFourLetters ? 'characters' : 'none'}
        autoComplete="off"
        spellCheck={false}
        value={state.code}
        onChange={(event) => dispatch({ type: 'codeChanged', input: event.target.value })}
        error={state.codeError}
      />
      {needsLuhnWarning(codeType, state.code) && (
        <p className={styles.warningBox} role="status">
          This number’s last digit does not pass the usual check, so it may be mistyped. Compare it
          with your SIM card. Some SIM numbers carry no check digit: if it matches, carry on.
        </p>
      )}
      {state.validationError && (
        <div className={styles.errorBox} role="alert">
          <p className={styles.errorText}>{state.validationError}</p>
          <Button variant="secondary" onClick={() => dispatch({ type: 'twentyDigitMethodChosen' })}>
            Try 20-digit method
          </Button>
        </div>
      )}
      <HelpLink onHelp={onHelp}>Where do I find my code?</HelpLink>
      <StepActions
        onBack={onBack}
        next={{ isDisabled: !isCodeComplete(codeType, state.code), isLoading: isPending }}
      />
    </form>
  );
}
