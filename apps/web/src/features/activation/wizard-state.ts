/**
 * The activation wizard as a state machine (docs/requirements.md#activation-wizard, #states transitions, #errors texts):
 * every step change the screens make goes through `wizardReducer`, so each transition is tested
 * without a browser. Step numbers follow the spec: 0 e-mail, 1 code type, 2 code, 3 region, 4 plan.
 */
import type { ActivationCodeType, ActivationRegion } from '@farmcam/contract';
import { isValidEmail } from '@farmcam/contract/rules';
import {
  inferCodeType,
  isCodeComplete,
  normaliseCode,
  parseCodeType,
  parseRegion,
} from './wizard-rules.ts';

export type WizardStep = 0 | 1 | 2 | 3 | 4;

export const wizardMessages = {
  missingEmail: 'You must enter an email',
  missingCode: 'You must enter a code',
  invalidEmail: 'Please enter a valid email',
} as const;

/** docs/requirements.md#limits: the region step moves on this long after a choice, so the choice is seen. */
export const regionAdvanceDelayMs = 100;

export interface WizardState {
  step: WizardStep;
  email: string;
  emailError: string | null;
  codeType: ActivationCodeType | null;
  code: string;
  codeError: string | null;
  /** The server's data.message after a failed validation (the red box). */
  validationError: string | null;
  location: ActivationRegion;
  /** The SIM number once validated (and, for a 4-letter code, confirmed in the modal). */
  iccid: string | null;
  /** A 4-letter code's SIM waiting for the SIM Validated modal's confirmation. */
  pendingIccid: string | null;
}

export type WizardAction =
  | { type: 'emailChanged'; email: string }
  | { type: 'emailPrefilled'; email: string }
  | { type: 'emailSubmitted' }
  | { type: 'codeTypeChosen'; codeType: ActivationCodeType }
  | { type: 'codeTypeSubmitted' }
  | { type: 'codeChanged'; input: string }
  | { type: 'validationSucceeded'; iccid: string }
  | { type: 'validationFailed'; message: string }
  | { type: 'simConfirmed' }
  | { type: 'simConfirmationDismissed' }
  | { type: 'twentyDigitMethodChosen' }
  | { type: 'regionChosen'; location: ActivationRegion }
  | { type: 'planStepEntered' }
  | { type: 'simNoLongerAvailable'; message: string }
  | { type: 'back' }
  | { type: 'historyMoved'; query: URLSearchParams; validatedIccid: string | null };

/**
 * The wizard as a page load or a history move finds it (docs/requirements.md#screens, decision 054): pre-filled from the
 * query, at the query's `step` as far as what is known allows. Steps 3 and 4 need the SIM this
 * history entry validated (kept in the entry's state, never in the address), else the code step.
 */
export function initialWizardState(
  query: URLSearchParams,
  signedInEmail?: string,
  validatedIccid: string | null = null,
): WizardState {
  const rawCode = query.get('code') ?? '';
  // No code_type in the link: the code's shape decides (decision 054).
  const codeType = parseCodeType(query.get('code_type')) ?? inferCodeType(rawCode);
  const state: WizardState = {
    step: 0,
    email: query.get('email') ?? signedInEmail ?? '',
    emailError: null,
    codeType,
    // A code that does not fit its type is dropped rather than shown half-valid.
    code: codeType ? normaliseCode(codeType, rawCode) : '',
    codeError: null,
    validationError: null,
    location: parseRegion(query.get('location')),
    iccid: null,
    pendingIccid: null,
  };
  return reachStep(state, parseStep(query.get('step')), validatedIccid);
}

export function parseStep(value: string | null): WizardStep {
  const step = Number(value);
  return step === 1 || step === 2 || step === 3 || step === 4 ? step : 0;
}

/** The furthest step up to `wanted` that what the wizard knows allows. */
function reachStep(state: WizardState, wanted: WizardStep, iccid: string | null): WizardState {
  if (wanted === 0 || !isValidEmail(state.email)) return state;
  if (wanted === 1 || !state.codeType) return { ...state, step: 1 };
  const hasValidatedSim =
    iccid !== null &&
    isCodeComplete(state.codeType, state.code) &&
    (state.codeType === '4-digits' || iccid === state.code);
  if (wanted === 2 || !hasValidatedSim) return { ...state, step: 2 };
  return { ...state, step: wanted, iccid };
}

/**
 * What the query mirrors (docs/requirements.md#screens): email, code_type, code and location, and the step past the
 * first, so each step is a history entry and a reload stays on it (decision 054).
 */
export function wizardQuery(state: WizardState): Record<string, string | undefined> {
  return {
    step: state.step === 0 ? undefined : String(state.step),
    email: state.email === '' ? undefined : state.email,
    code_type: state.codeType ?? undefined,
    code: state.code === '' ? undefined : state.code,
    location: state.location,
  };
}

export const previousStep: Record<WizardStep, WizardStep> = { 0: 0, 1: 0, 2: 1, 3: 2, 4: 3 };

export function wizardReducer(state: WizardState, action: WizardAction): WizardState {
  switch (action.type) {
    case 'emailChanged':
      return { ...state, email: action.email, emailError: null };
    case 'emailPrefilled':
      return state.email === '' ? { ...state, email: action.email } : state;
    case 'emailSubmitted': {
      const email = state.email.trim();
      if (!isValidEmail(email)) return { ...state, emailError: wizardMessages.invalidEmail };
      // Step 0 skips the code-type step when the code or its type is already known (docs/requirements.md#states).
      const hasCode = state.code !== '' || state.codeType !== null;
      return { ...state, email, emailError: null, step: hasCode ? 2 : 1 };
    }
    case 'codeTypeChosen':
      if (action.codeType === state.codeType) return state;
      // Switching code type clears the entered codes (docs/requirements.md#states).
      return {
        ...state,
        codeType: action.codeType,
        code: '',
        codeError: null,
        validationError: null,
        iccid: null,
        pendingIccid: null,
      };
    case 'codeTypeSubmitted':
      return state.codeType ? { ...state, step: 2 } : state;
    case 'codeChanged':
      if (!state.codeType) return state;
      return {
        ...state,
        code: normaliseCode(state.codeType, action.input),
        codeError: null,
        validationError: null,
        iccid: null,
      };
    case 'validationSucceeded':
      // A 4-letter code's SIM is confirmed in the SIM Validated modal first (docs/requirements.md#screens).
      return state.codeType === '4-digits'
        ? { ...state, validationError: null, pendingIccid: action.iccid }
        : { ...state, validationError: null, iccid: action.iccid, step: 3 };
    case 'validationFailed':
      return { ...state, validationError: action.message, iccid: null };
    case 'simConfirmed':
      return state.pendingIccid
        ? { ...state, iccid: state.pendingIccid, pendingIccid: null, step: 3 }
        : state;
    case 'simConfirmationDismissed':
      return { ...state, pendingIccid: null };
    case 'twentyDigitMethodChosen':
      return {
        ...wizardReducer(state, { type: 'codeTypeChosen', codeType: '20-digits' }),
        code: '',
        validationError: null,
        iccid: null,
        step: 2,
      };
    case 'regionChosen':
      return { ...state, location: action.location };
    case 'planStepEntered':
      if (state.email.trim() === '') {
        return { ...state, step: 0, emailError: wizardMessages.missingEmail };
      }
      if (state.code === '' || !state.iccid) {
        return { ...state, step: 2, codeError: wizardMessages.missingCode };
      }
      return { ...state, step: 4 };
    case 'simNoLongerAvailable':
      return { ...state, step: 2, iccid: null, validationError: action.message };
    case 'back':
      return { ...state, step: previousStep[state.step], pendingIccid: null };
    case 'historyMoved':
      // Browser Back or Forward: the entry's query and SIM, as a reload would find them.
      return initialWizardState(action.query, undefined, action.validatedIccid);
  }
}
