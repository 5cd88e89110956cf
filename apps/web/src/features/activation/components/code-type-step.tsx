import { useId } from 'react';
import type { FormEvent } from 'react';
import type { ActivationCodeType } from '@farmcam/contract';
import { HelpLink, StepActions } from './step-actions.tsx';
import type { StepProps } from './step-props.ts';
import styles from './activation.module.css';

const codeTypeOptions: { value: ActivationCodeType; label: string; hint: string }[] = [
  {
    value: '4-digits',
    label: '4-digit code',
    hint: 'The 4 letters from the card or e-mail that came with your SIM',
  },
  {
    value: '20-digits',
    label: '20-digit ICCID',
    hint: 'The long SIM number printed on the SIM card itself',
  },
];

/** Step 2: which of the two codes the customer has. */
export function CodeTypeStep({
  state,
  dispatch,
  onBack,
  onHelp,
}: StepProps & { onHelp: () => void }) {
  const name = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    dispatch({ type: 'codeTypeSubmitted' });
  };
  return (
    <form className={styles.form} onSubmit={submit}>
      <fieldset className={styles.choices}>
        <legend className={styles.legend}>Which do you have?</legend>
        {codeTypeOptions.map((option) => (
          <label key={option.value} className={styles.choice}>
            <input
              type="radio"
              name={name}
              value={option.value}
              checked={state.codeType === option.value}
              onChange={() => dispatch({ type: 'codeTypeChosen', codeType: option.value })}
            />
            <span>
              <span className={styles.choiceLabel}>{option.label}</span>
              <span className={styles.choiceHint}>{option.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <HelpLink onHelp={onHelp}>Where do I find these?</HelpLink>
      <StepActions onBack={onBack} next={{ isDisabled: state.codeType === null }} />
    </form>
  );
}
