import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useReducer,
  useRef,
  useState,
} from 'react';
import type { ComponentType, FormEvent, ReactNode } from 'react';
import { useLocation, useNavigate, useNavigationType, useSearchParams } from 'react-router';
import type { ActivationCodeType, ActivationRegion } from '@farmcam/contract';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { classNames } from '../../../components/ui/class-names.ts';
import { Loader } from '../../../components/ui/spinner.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useIsSignedIn } from '../../../lib/auth-store.ts';
import { useCurrentUser } from '../../../lib/current-user.ts';
import { useActivationConfig } from '../api/get-activation-config.ts';
import { useValidateActivationCode } from '../api/validate-activation-code.ts';
import { useValidateIccid } from '../api/validate-iccid.ts';
import { isCodeComplete, needsLuhnWarning } from '../wizard-rules.ts';
import {
  initialWizardState,
  parseStep,
  previousStep as stepBefore,
  regionAdvanceDelayMs,
  wizardQuery,
  wizardReducer,
  type WizardAction,
  type WizardState,
  type WizardStep,
} from '../wizard-state.ts';
import { ActivationHelpModal } from './activation-help-modal.tsx';
import { PlanStep } from './plan-step.tsx';
import { SimValidatedModal } from './sim-validated-modal.tsx';
import styles from './activation.module.css';

const stepTitles: Record<WizardStep, string> = {
  0: 'Your e-mail',
  1: 'How to find your SIM',
  2: 'Enter the code',
  3: 'Select Region',
  4: 'Choose plan',
};

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

const regions: { value: ActivationRegion; label: string }[] = [
  { value: 'uk', label: 'United Kingdom' },
  { value: 'ie', label: 'Ireland' },
];

/** An optional signal check for the region step (the coverage feature's, given by the app). */
export type CoverageCheckComponent = ComponentType<{
  initialPostcode?: string;
  onPostcodeChange?: (postcode: string) => void;
  title?: string;
}>;

/**
 * The five-step activation wizard (/activate, spec §2, §4, §5, §8): open to new visitors, pre-filled
 * for signed-in customers, its state mirrored in the query so a reload or a shared link resumes it.
 * A visitor sent from a coverage result ("Activate a camera here", ?postcode=) finds that
 * postcode's signal check open in the region step.
 */
export function ActivatePage({ coverageCheck }: { coverageCheck?: CoverageCheckComponent }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const isSignedIn = useIsSignedIn();
  const currentUser = useCurrentUser();
  const location = useLocation();
  const navigationType = useNavigationType();
  const navigate = useNavigate();
  const [state, dispatch] = useReducer(wizardReducer, searchParams, (query) =>
    initialWizardState(query, undefined, entryOf(location.state).iccid),
  );
  const [isHelpOpen, setIsHelpOpen] = useState(false);
  const config = useActivationConfig();

  // A customer's own session (or staff inside a customer's portal): plain staff have no account
  // to activate into, so nothing is filled in and no customer session is made for them.
  const hasCustomerScope = isSignedIn && Boolean(currentUser.data?.customerId);
  const signedInEmail = hasCustomerScope ? currentUser.data?.email : undefined;
  useEffect(() => {
    if (signedInEmail) dispatch({ type: 'emailPrefilled', email: signedInEmail });
  }, [signedInEmail]);

  // Each step is a history entry (decision 054): a step change pushes one, anything else (typing,
  // a region) rewrites the current one. The entry's state keeps the validated SIM, so a reload or
  // Forward can stand on steps 3 and 4, and the step it was pushed from, for the Back button.
  const locationRef = useRef(location);
  useLayoutEffect(() => {
    locationRef.current = location;
  });
  const stepInEntry = useRef(state.step);
  const queryKey = JSON.stringify(
    Object.entries(wizardQuery(state)).map(([key, value]) => [key, value ?? null]),
  );
  useEffect(() => {
    const current = locationRef.current;
    const next = new URLSearchParams(current.search);
    for (const [key, value] of JSON.parse(queryKey) as [string, string | null][]) {
      if (value === null) next.delete(key);
      else next.set(key, value);
    }
    const entry = entryOf(current.state);
    const isNewStep = state.step !== stepInEntry.current;
    const from = isNewStep ? stepInEntry.current : entry.from;
    stepInEntry.current = state.step;
    if (!isNewStep && `?${next.toString()}` === current.search && entry.iccid === state.iccid) {
      return;
    }
    const wizardEntry: WizardEntry = { iccid: state.iccid, from };
    void navigate(
      { search: `?${next.toString()}`, hash: current.hash },
      {
        replace: !isNewStep,
        state: { ...(isRecord(current.state) ? current.state : {}), wizardEntry },
        preventScrollReset: true,
      },
    );
  }, [queryKey, state.iccid, state.step, navigate]);

  // Browser Back or Forward onto another of the wizard's entries: show that entry's step.
  const handledKey = useRef(location.key);
  useEffect(() => {
    if (handledKey.current === location.key) return;
    handledKey.current = location.key;
    if (navigationType !== 'POP') return;
    const query = new URLSearchParams(location.search);
    const validatedIccid = entryOf(location.state).iccid;
    // The entry's own step (or less, if it cannot be stood on): written back without a new entry.
    stepInEntry.current = initialWizardState(query, undefined, validatedIccid).step;
    dispatch({ type: 'historyMoved', query, validatedIccid });
  }, [location.key, location.search, location.state, navigationType]);

  // The Back button: the browser's Back when this entry came from the step before, so the two
  // agree; otherwise (e.g. a reloaded link) a step back as a new entry.
  const goBack = () => {
    const entry = entryOf(locationRef.current.state);
    if (entry.from !== null && entry.from === stepBefore[state.step]) void navigate(-1);
    else dispatch({ type: 'back' });
  };

  const headingRef = useRef<HTMLHeadingElement>(null);
  const previousStep = useRef(state.step);
  useEffect(() => {
    // Each step is announced: focus moves to its title, as after a page change.
    if (previousStep.current !== state.step) headingRef.current?.focus();
    previousStep.current = state.step;
  }, [state.step]);

  const onSimUnavailable = useCallback(
    (message: string) => dispatch({ type: 'simNoLongerAvailable', message }),
    [],
  );

  return (
    <Card className={styles.wizard}>
      <StepProgress step={state.step} />
      <h2 ref={headingRef} tabIndex={-1} className={styles.stepTitle}>
        {stepTitles[state.step]}
      </h2>
      {state.step === 0 && <EmailStep state={state} dispatch={dispatch} />}
      {state.step === 1 && (
        <CodeTypeStep
          state={state}
          dispatch={dispatch}
          onBack={goBack}
          onHelp={() => setIsHelpOpen(true)}
        />
      )}
      {state.step === 2 && (
        <CodeStep
          state={state}
          dispatch={dispatch}
          onBack={goBack}
          onHelp={() => setIsHelpOpen(true)}
        />
      )}
      {state.step === 3 && (
        <RegionStep state={state} dispatch={dispatch} onBack={goBack}>
          {coverageCheck && (
            <OptionalCoverageCheck
              CoverageCheck={coverageCheck}
              postcode={searchParams.get('postcode') ?? ''}
              onPostcodeChange={(postcode) =>
                setSearchParams(
                  (current) => {
                    const next = new URLSearchParams(current);
                    next.set('postcode', postcode);
                    return next;
                  },
                  { replace: true, state: locationRef.current.state },
                )
              }
            />
          )}
        </RegionStep>
      )}
      {state.step === 4 && state.iccid && (
        <>
          {config.isPending ? (
            <Loader label="Loading plans…" />
          ) : config.isError ? (
            <p className={styles.errorBox} role="alert">
              {errorMessage(config.error, 'The plans could not be loaded. Please try again.')}
            </p>
          ) : (
            <PlanStep
              config={config.data}
              iccid={state.iccid}
              email={state.email}
              location={state.location}
              isSignedIn={hasCustomerScope}
              onSimUnavailable={onSimUnavailable}
            />
          )}
          <StepActions onBack={goBack} />
        </>
      )}
      <SimValidatedModal
        iccid={state.pendingIccid}
        onConfirm={() => dispatch({ type: 'simConfirmed' })}
        onClose={() => dispatch({ type: 'simConfirmationDismissed' })}
      />
      <ActivationHelpModal isOpen={isHelpOpen} onClose={() => setIsHelpOpen(false)} />
    </Card>
  );
}

function StepProgress({ step }: { step: WizardStep }) {
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

interface StepProps {
  state: WizardState;
  dispatch: (action: WizardAction) => void;
  onBack: () => void;
}

/** What the wizard keeps in a history entry's state (decision 054). */
interface WizardEntry {
  /** The SIM validated on the way to this entry, so steps 3 and 4 survive a reload. */
  iccid: string | null;
  /** The step this entry was pushed from, or null when it was not pushed by a step change. */
  from: WizardStep | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function entryOf(state: unknown): WizardEntry {
  const entry = isRecord(state) ? state.wizardEntry : undefined;
  if (!isRecord(entry)) return { iccid: null, from: null };
  return {
    iccid: typeof entry.iccid === 'string' ? entry.iccid : null,
    from: typeof entry.from === 'number' ? parseStep(String(entry.from)) : null,
  };
}

function StepActions({
  onBack,
  next,
}: {
  onBack?: () => void;
  next?: { label?: string; isDisabled: boolean; isLoading?: boolean };
}) {
  return (
    <div className={styles.actions}>
      {onBack && (
        <Button variant="secondary" onClick={onBack}>
          Back
        </Button>
      )}
      {next && (
        <Button type="submit" disabled={next.isDisabled} isLoading={next.isLoading ?? false}>
          {next.label ?? 'Next'}
        </Button>
      )}
    </div>
  );
}

function EmailStep({ state, dispatch }: Omit<StepProps, 'onBack'>) {
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

function HelpLink({ onHelp, children }: { onHelp: () => void; children: ReactNode }) {
  return (
    <button type="button" className={styles.linkButton} onClick={onHelp}>
      {children}
    </button>
  );
}

function CodeTypeStep({ state, dispatch, onBack, onHelp }: StepProps & { onHelp: () => void }) {
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

function CodeStep({ state, dispatch, onBack, onHelp }: StepProps & { onHelp: () => void }) {
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

function OptionalCoverageCheck({
  CoverageCheck,
  postcode,
  onPostcodeChange,
}: {
  CoverageCheck: CoverageCheckComponent;
  postcode: string;
  onPostcodeChange: (postcode: string) => void;
}) {
  // Opened at once for a visitor who came from a coverage result; otherwise on request.
  const [initialPostcode] = useState(postcode);
  return (
    <details className={styles.coverage} open={initialPostcode !== ''}>
      <summary className={styles.coverageSummary}>
        Check the signal where the camera will go (UK postcodes, optional)
      </summary>
      <div className={styles.coverageBody}>
        <CoverageCheck
          initialPostcode={initialPostcode}
          onPostcodeChange={onPostcodeChange}
          title="Signal at the camera’s site"
        />
      </div>
    </details>
  );
}

function RegionStep({ state, dispatch, onBack, children }: StepProps & { children?: ReactNode }) {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const choose = (location: ActivationRegion) => {
    dispatch({ type: 'regionChosen', location });
    clearTimeout(timer.current);
    // Spec §4: step 3 goes to step 4 after 100 ms, so the choice is seen to be taken.
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
