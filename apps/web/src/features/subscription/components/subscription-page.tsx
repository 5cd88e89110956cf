import type { EligiblePlan } from '@farmcam/contract';
import { useId, useState } from 'react';
import { Link, useNavigate, useParams } from '../../../lib/router/index.ts';
import { useActivePause } from '../../../components/billing/api/check-active-pause.ts';
import { useOpenBillingPortal } from '../../../components/billing/api/create-portal-session.ts';
import { CancelPauseModal } from '../../../components/billing/cancel-pause-modal.tsx';
import { PauseSubscriptionModal } from '../../../components/billing/pause-subscription-modal.tsx';
import { BillingAccountPage } from '../../../components/billing/billing-account-page.tsx';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { classNames } from '../../../components/ui/class-names.ts';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { useAbilities } from '../../../lib/access.ts';
import { ApiError, errorMessage, toastFailure } from '../../../lib/api-client.ts';
import { formatDay } from '@farmcam/contract/rules';
import { toast } from '../../../lib/toast.tsx';
import { usePaymentMethods } from '../api/all-payment-methods.ts';
import { useChangePlan } from '../api/change-plan.ts';
import { useEligiblePlans } from '../api/fetch-eligible-plans.ts';
import { PaymentMethodsList } from './payment-methods-list.tsx';
import { PlanCard } from './plan-card.tsx';
import { SwitchPlanModal } from './switch-plan-modal.tsx';
import styles from './subscription-page.module.css';

export const planSwitchedMessage = 'Plan switched successfully';
export const planSwitchFailedMessage = 'Failed to switch plan';
const reloadDelayMs = 1000;

/** The reason the server gave for a failed switch, when it gave one the user can act on. */
function switchFailure(error: unknown): string {
  if (error instanceof ApiError && typeof error.status === 'number' && error.status < 500) {
    return `${planSwitchFailedMessage}: ${errorMessage(error)}`;
  }
  return planSwitchFailedMessage;
}

/**
 * Manage plan (/subscription/{stripeId}): plans, payment methods, portal, pause (docs/requirements.md#screens),
 * titled with the camera it is about (decision 111). A camera whose SIM is switched off has no
 * plan to manage: the page says so and what to do instead.
 */
export function SubscriptionPage() {
  const { stripeId = '' } = useParams();
  return (
    <BillingAccountPage customerId={stripeId} pageName="Manage plan">
      {(account) =>
        account.can_manage_plan ? (
          <ManagePlan stripeId={stripeId} />
        ) : (
          <NothingToManage refusal={account.manage_plan_refusal} />
        )
      }
    </BillingAccountPage>
  );
}

function NothingToManage({ refusal }: { refusal: string | null }) {
  const abilities = useAbilities();
  return (
    <Card>
      <div className={styles.nothingToManage}>
        <p role="status">{refusal}</p>
        <div className={styles.pageActions}>
          {abilities.activateSims && (
            <Link to={paths.activate.href()} className={buttonClassName({ variant: 'primary' })}>
              Activate a new SIM
            </Link>
          )}
          <Link to={paths.dashboard.href()}>Back to your cameras</Link>
        </div>
      </div>
    </Card>
  );
}

function ManagePlan({ stripeId }: { stripeId: string }) {
  const navigate = useNavigate();
  const plans = useEligiblePlans(stripeId);
  const abilities = useAbilities();
  const changePlan = useChangePlan();
  const portal = useOpenBillingPortal();
  const [chosenPlan, setChosenPlan] = useState<EligiblePlan | null>(null);
  const [isPauseOpen, setIsPauseOpen] = useState(false);
  const [isCancelPauseOpen, setIsCancelPauseOpen] = useState(false);
  const activePause = useActivePause(stripeId);
  const scheduledPause =
    activePause.data?.state === 'scheduled' && activePause.data.pause
      ? { startDate: activePause.data.pause.start_date, endDate: activePause.data.pause.end_date }
      : null;

  // The server decides whether a switch or a pause would be accepted, and says why not
  // (decisions 081 and 170): an annual or overdue plan is not offered a pause it would refuse.
  const canSwitch = plans.data?.can_switch ?? false;
  const switchRefusal = plans.data?.switch_refusal ?? null;
  const canPause = plans.data?.can_pause ?? false;
  const pauseRefusal = plans.data?.pause_refusal ?? null;
  const pauseRefusalId = useId();

  const confirmSwitch = (plan: EligiblePlan) =>
    changePlan.mutate(
      { customerId: stripeId, newPlanId: plan.id },
      {
        onSuccess: () => toast.success(planSwitchedMessage),
        onError: (error) => toastFailure(error, switchFailure(error)),
        onSettled: () => setChosenPlan(null),
      },
    );

  // One loader for the page until the plans are in: a loader in the plans card alone, followed
  // by the payment card, pushed that card down the phone's screen when the plans arrived (a
  // layout shift of 0.33 in Lighthouse).
  if (plans.isPending) return <Loader label="Loading plans…" />;

  return (
    <div className={styles.page}>
      <Card title="Available Plans">
        {plans.isError ? (
          <p role="alert" className={styles.error}>
            {errorMessage(plans.error, 'Could not load the plans.')}
          </p>
        ) : (
          <>
            {switchRefusal && (
              <p className={styles.notice} role="status">
                {switchRefusal}
              </p>
            )}
            <div className={styles.plans}>
              {plans.data.eligible_plans.map((plan) => (
                <PlanCard
                  key={plan.id}
                  plan={plan}
                  canSwitch={canSwitch}
                  onSwitch={setChosenPlan}
                />
              ))}
            </div>
          </>
        )}
      </Card>

      {/* Payments are the owner's (user-data access.can); a Manager sees the plans and the pause. */}
      <Card title={abilities.manageBilling ? 'Payment methods' : 'Pause'}>
        {abilities.manageBilling && <PaymentMethods stripeId={stripeId} />}
        {scheduledPause && (
          <p className={styles.notice} role="status">
            Pause scheduled from {formatDay(scheduledPause.startDate)} until{' '}
            {formatDay(scheduledPause.endDate)}.
          </p>
        )}
        {abilities.manageCameras && pauseRefusal && (
          <p className={classNames(styles.notice, styles.pauseNotice)} id={pauseRefusalId}>
            {pauseRefusal}
          </p>
        )}
        <div className={styles.pageActions}>
          {abilities.manageBilling && (
            <Button onClick={() => portal.open(stripeId)} isLoading={portal.isPending}>
              Update payment details
            </Button>
          )}
          {abilities.manageCameras && (
            <Button
              variant="secondary"
              onClick={() => setIsPauseOpen(true)}
              disabled={!canPause}
              aria-describedby={pauseRefusal ? pauseRefusalId : undefined}
            >
              Pause subscription
            </Button>
          )}
          {scheduledPause && abilities.manageCameras && (
            <Button variant="secondary" onClick={() => setIsCancelPauseOpen(true)}>
              Cancel scheduled pause
            </Button>
          )}
        </div>
      </Card>

      <SwitchPlanModal
        customerId={stripeId}
        plan={chosenPlan}
        isSwitching={changePlan.isPending}
        onConfirm={confirmSwitch}
        onClose={() => {
          if (!changePlan.isPending) setChosenPlan(null);
        }}
      />
      <PauseSubscriptionModal
        billingCustomerId={stripeId}
        isOpen={isPauseOpen}
        onClose={() => setIsPauseOpen(false)}
        onPaused={() => navigate(paths.dashboard.href({ isRefresh: true }))}
      />
      <CancelPauseModal
        billingCustomerId={stripeId}
        pause={scheduledPause}
        isOpen={isCancelPauseOpen}
        onClose={() => setIsCancelPauseOpen(false)}
        // docs/requirements.md#states: the list reloads 1 s after a pause or a cancel succeeds.
        onCanceled={() => setTimeout(() => void activePause.refetch(), reloadDelayMs)}
        onChangeDate={() => {
          setIsCancelPauseOpen(false);
          setIsPauseOpen(true);
        }}
      />
    </div>
  );
}

/** The saved cards; asked for only when the person may see payments. */
function PaymentMethods({ stripeId }: { stripeId: string }) {
  const paymentMethods = usePaymentMethods(stripeId);
  if (paymentMethods.isPending) return <Loader label="Loading payment methods…" />;
  if (paymentMethods.isError) {
    return (
      <p role="alert" className={styles.error}>
        {errorMessage(paymentMethods.error, 'Could not load the payment methods.')}
      </p>
    );
  }
  return <PaymentMethodsList methods={paymentMethods.data} />;
}
