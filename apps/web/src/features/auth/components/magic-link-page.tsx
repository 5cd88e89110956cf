import { useEffect } from 'react';
import { useNavigate, useParams } from '../../../lib/router/index.ts';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage, toastFailure } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import { signInWithLoginLink } from '../api/sign-in-with-login-link.ts';

export const loginSuccessfulMessage = 'Login successful';

/** Magic-link landing (/login/:token): exchanges the link's token, then dashboard or back to /. */
export function MagicLinkPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();

  useEffect(() => {
    let isCurrent = true;
    signInWithLoginLink(token).then(
      () => {
        if (!isCurrent) return;
        toast.success(loginSuccessfulMessage);
        void navigate(paths.dashboard.href(), { replace: true });
      },
      (error: unknown) => {
        if (!isCurrent) return;
        toastFailure(
          error,
          errorMessage(error, 'That login link did not work, please request a new one'),
        );
        void navigate(paths.login.href(), { replace: true });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [token, navigate]);

  return <Loader label="Signing you in…" />;
}
