import { useState, type ReactNode } from 'react';
import { Link } from '../../../lib/router/index.ts';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { useAbilities, useAccess } from '../../../lib/access.ts';
import { useIsFirstScreenPainted } from '../../../lib/after-paint.ts';
import { usePageTitle } from '../../../lib/page-title.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { usePlans } from '../api/get-plans.ts';
import { ActivationCodeHelpModal } from './activation-code-help-modal.tsx';
import { CamerasSection } from './cameras-section.tsx';
import { CombinedPlanCard } from './combined-plan-card.tsx';
import { SpendAlertCard } from './spend-alert-card.tsx';
import styles from './dashboard-page.module.css';
import { useRefreshRequest } from './use-refresh-request.ts';

/**
 * Its children once the screen it first shows on has been painted: the spend alert sits below the
 * cameras, off a phone's first screen, and it and its answer wait for that screen (decision 174).
 */
function AfterFirstScreen({ children }: { children: ReactNode }) {
  return useIsFirstScreenPainted() ? children : null;
}

/** Account (/dashboard): the combined plan and the customer's cameras (docs/requirements.md#screens). */
export function DashboardPage() {
  const plans = usePlans();
  const isRefreshing = useRefreshRequest();
  const [isHelpOpen, setIsHelpOpen] = useState(false);
  const abilities = useAbilities();
  const access = useAccess();
  // A member sees cameras someone else owns and pays for: the page says whose (decision 141).
  const sharedBy = access && access.role !== 'owner' ? access.accountEmail : null;
  usePageTitle(sharedBy ? `Cameras shared by ${sharedBy}` : null);

  let content;
  if (isRefreshing || plans.isPending) {
    content = (
      <Loader label={isRefreshing ? 'Refreshing your cameras…' : 'Loading your cameras…'} />
    );
  } else if (plans.data === undefined) {
    // Without an answer, the failure; with one (kept on the device, or from before), the cameras
    // stay on show and the frame says how old they are (decision 119).
    content = (
      <Card title="My cameras">
        <p role="alert" className={styles.error}>
          {errorMessage(plans.error, 'Could not load your cameras, please try again')}
        </p>
        <Button
          variant="secondary"
          onClick={() => void plans.refetch()}
          isLoading={plans.isFetching}
        >
          Try again
        </Button>
      </Card>
    );
  } else if (plans.data.cameras.length === 0) {
    content = (
      <Card title={sharedBy ? 'Shared cameras' : 'My cameras'}>
        <p>
          {sharedBy ? `${sharedBy} has shared no camera with you yet.` : 'You have no cameras yet.'}
        </p>
        {abilities.activateSims && (
          <>
            <p className={styles.muted}>
              Activate a SIM with a streaming plan and its camera appears here, with its plan and
              data usage.
            </p>
            <div className={styles.emptyActions}>
              <Link to={paths.activate.href()} className={buttonClassName({ variant: 'primary' })}>
                Activate a camera
              </Link>
              <Button variant="secondary" onClick={() => setIsHelpOpen(true)}>
                Where do I find my activation code?
              </Button>
            </div>
          </>
        )}
      </Card>
    );
  } else {
    const { cameras, overallSummary, supportEmail } = plans.data;
    content = (
      <>
        <CombinedPlanCard summary={overallSummary} isShared={sharedBy !== null} />
        <CamerasSection
          cameras={cameras}
          supportEmail={supportEmail}
          abilities={abilities}
          header={
            <div className={styles.sectionHeader}>
              <h2 id="my-cameras-heading" className={styles.sectionTitle}>
                {sharedBy ? 'Shared cameras' : 'My cameras'}{' '}
                <span className={styles.count}>({cameras.length})</span>
              </h2>
              {abilities.activateSims && (
                <div className={styles.headerActions}>
                  <button
                    type="button"
                    className={styles.helpButton}
                    onClick={() => setIsHelpOpen(true)}
                  >
                    Where do I find my activation code?
                  </button>
                  <Link
                    to={paths.activate.href()}
                    className={buttonClassName({ variant: 'secondary' })}
                  >
                    Activate a camera
                  </Link>
                </div>
              )}
            </div>
          }
        />
        {abilities.manageBilling && (
          <AfterFirstScreen>
            <SpendAlertCard />
          </AfterFirstScreen>
        )}
      </>
    );
  }

  return (
    <div className={styles.page}>
      {content}
      <ActivationCodeHelpModal isOpen={isHelpOpen} onClose={() => setIsHelpOpen(false)} />
    </div>
  );
}
