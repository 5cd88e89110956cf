import type { WizardAction, WizardState } from '../wizard-state.ts';

/** What the page gives each step: the wizard's state, its dispatch and the Back button's action. */
export interface StepProps {
  state: WizardState;
  dispatch: (action: WizardAction) => void;
  onBack: () => void;
}
