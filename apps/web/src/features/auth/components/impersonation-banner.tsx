import { formatUkTime } from '@farmcam/contract/rules';
import { Button } from '../../../components/ui/button.tsx';
import { useAuthState } from '../../../lib/auth-store.ts';
import { useCurrentUser } from '../../../lib/current-user.ts';
import { useEndImpersonation } from '../api/logout.ts';
import styles from './impersonation-banner.module.css';

/** Shown on every framed page while staff view a customer's portal, so they never forget it. */
export function ImpersonationBanner() {
  const { staffToken } = useAuthState();
  return staffToken === null ? null : <ImpersonationNotice />;
}

function ImpersonationNotice() {
  const impersonation = useCurrentUser().data?.impersonation;
  const endImpersonation = useEndImpersonation();

  return (
    <section className={styles.banner} aria-label="Staff view">
      <p className={styles.text}>
        {impersonation
          ? `Viewing the portal as ${impersonation.customerEmail} — staff ${impersonation.staffEmail}, until ${formatUkTime(impersonation.expiresAt)} UK time`
          : 'Viewing a customer’s portal as staff'}
      </p>
      <Button variant="secondary" onClick={endImpersonation}>
        Back to staff
      </Button>
    </section>
  );
}
