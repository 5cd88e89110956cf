import { cameraLabelOf } from '@farmcam/contract/rules';
import type { BillingAccountResponse } from '@farmcam/contract';
import type { ReactNode } from 'react';
import { Link } from '../../lib/router/index.ts';
import { paths } from '../../config/paths.ts';
import { ApiError, errorMessage } from '../../lib/api-client.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { Button } from '../ui/button.tsx';
import { Card } from '../ui/card.tsx';
import { Loader } from '../ui/spinner.tsx';
import { useBillingAccount } from './api/billing-account.ts';
import styles from './billing-account-page.module.css';

export const unknownAccountTitle = 'Billing account not found';

/**
 * A page about one camera's billing account (Manage plan, Invoices): it first asks which camera
 * the account pays for, and then titles the page with it ("Manage plan — Fuel tank (SIM …1071)",
 * decision 111). An account that is not the person's, or does not exist, gets one message and a
 * way back, and nothing of the page under it: no button can act on an account nobody found.
 */
export function BillingAccountPage({
  customerId,
  pageName,
  children,
}: {
  customerId: string;
  /** The route's own title, e.g. "Manage plan", to which the camera is added. */
  pageName: string;
  children: (account: BillingAccountResponse) => ReactNode;
}) {
  const account = useBillingAccount(customerId);
  const camera = account.data?.camera;
  usePageTitle(
    account.isError && isUnknown(account.error)
      ? unknownAccountTitle
      : camera
        ? `${pageName} — ${cameraLabelOf(camera.nickname, camera.iccid)}`
        : null,
  );

  if (account.isPending) return <Loader label="Loading…" />;
  // A failed refresh keeps an earlier answer (kept on the device) on show (decision 119).
  if (account.data === undefined) {
    if (isUnknown(account.error)) {
      return (
        <Card>
          <div className={styles.message}>
            <p role="alert">
              There is no camera with this billing account on your login. The link may be old, or
              the camera may belong to another account.
            </p>
            <Link to={paths.dashboard.href()}>Back to your cameras</Link>
          </div>
        </Card>
      );
    }
    return (
      <Card>
        <div className={styles.message}>
          <p role="alert">{errorMessage(account.error, 'Could not load this page.')}</p>
          <div className={styles.actions}>
            <Button variant="secondary" onClick={() => void account.refetch()}>
              Try again
            </Button>
            <Link to={paths.dashboard.href()}>Back to your cameras</Link>
          </div>
        </div>
      </Card>
    );
  }
  return <>{children(account.data)}</>;
}

const isUnknown = (error: unknown) => error instanceof ApiError && error.status === 404;
