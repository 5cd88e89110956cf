import type { WizardStep } from '../wizard-state.ts';

/** Each step's title: the heading the wizard moves focus to, and the progress markers' names. */
export const stepTitles: Record<WizardStep, string> = {
  0: 'Your e-mail',
  1: 'How to find your SIM',
  2: 'Enter the code',
  3: 'Select Region',
  4: 'Choose plan',
};
