import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState } from 'react';
import {
  useLocation,
  useNavigate,
  useNavigationType,
  useSearchParams,
} from '../../../lib/router/index.ts';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useIsSignedIn } from '../../../lib/auth-store.ts';
import { useCurrentUser } from '../../../lib/current-user.ts';
import { useActivationConfig } from '../api/get-activation-config.ts';
import {
  initialWizardState,
  previousStep as stepBefore,
  wizardQuery,
  wizardReducer,
} from '../wizard-state.ts';
import { ActivationHelpModal } from './activation-help-modal.tsx';
import { CodeStep } from './code-step.tsx';
import { CodeTypeStep } from './code-type-step.tsx';
import { EmailStep } from './email-step.tsx';
import { OptionalCoverageCheck, type CoverageCheckComponent } from './optional-coverage-check.tsx';
import { PlanStep } from './plan-step.tsx';
import { RegionStep } from './region-step.tsx';
import { SimValidatedModal } from './sim-validated-modal.tsx';
import { StepActions } from './step-actions.tsx';
import { StepProgress } from './step-progress.tsx';
import { stepTitles } from './step-titles.ts';
import { entryOf, isRecord, type WizardEntry } from './wizard-history-entry.ts';
import styles from './activation.module.css';

export type { CoverageCheckComponent } from './optional-coverage-check.tsx';

/**
 * The five-step activation wizard (/activate, docs/requirements.md#screens, #states, #input-rules, #errors): open to new visitors, pre-filled
 * for signed-in customers, its state mirrored in the query so a reload or a shared link resumes it.
 * A visitor sent from a coverage result ("Activate a camera here", ?postcode=) finds that
 * postcode's signal check open in the region step. This file is the page around the steps: the
 * state, the history entries and the Back button; each step has its own file beside it.
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
  // Before the step is painted, not after: once its field shows, a tap or a typed letter may already
  // be there, and focus moved afterwards would take them away (a journey lost a typed code so).
  useLayoutEffect(() => {
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
