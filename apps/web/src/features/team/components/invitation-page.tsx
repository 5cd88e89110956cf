import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from '../../../lib/router/index.ts';
import { buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import { acceptInvitation } from '../api/accept-invitation.ts';
import styles from './team-page.module.css';

export const invitationFailedFallback = 'This invitation link does not work any more.';
const incompleteLinkMessage =
  'This invitation link is not complete. Open the link from the e-mail again.';
export const joinedMessage = 'Welcome: you have joined the team';

/**
 * The e-mailed invitation (/invitation?token=…): accepting it signs the person in (as a login
 * link does) and opens their cameras. A link that has expired, was used, or was replaced says so
 * and offers a sign-in link instead (decision 093).
 */
export function InvitationPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token') ?? '';
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    let isCurrent = true;
    if (token === '') return;
    acceptInvitation(token).then(
      () => {
        if (!isCurrent) return;
        toast.success(joinedMessage);
        void navigate(paths.dashboard.href(), { replace: true });
      },
      (error: unknown) => {
        if (isCurrent) setFailure(errorMessage(error, invitationFailedFallback));
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [token, navigate]);

  const shown = token === '' ? incompleteLinkMessage : failure;
  if (shown === null) return <Loader label="Opening your invitation…" />;
  return (
    <Card>
      <div className={styles.invitation}>
        <p role="alert" className={styles.formError}>
          {shown}
        </p>
        <p>
          Invitations last 7 days and work once. If you have joined already, sign in with your
          e-mail address. If not, ask the account owner to send the invitation again.
        </p>
        <p>
          <Link to={paths.login.href()} className={buttonClassName({ variant: 'primary' })}>
            Get a sign-in link
          </Link>
        </p>
      </div>
    </Card>
  );
}
