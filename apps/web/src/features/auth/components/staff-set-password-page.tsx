import { staffPasswordRule } from '@farmcam/contract/rules';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate, useParams } from '../../../lib/router/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage, toastFailure } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import { useStaffSetPassword } from '../api/staff-set-password.ts';
import styles from './auth-pages.module.css';

export const passwordsDifferMessage = 'The two passwords are not the same';
export const passwordSetMessage = 'Your password is set. Please sign in.';

/**
 * Set-password page (/team-login/set-password/:token), opened from the link that
 * `npm run staff -- add` or `reset` prints: the new password twice, then on to /team-login.
 */
export function StaffSetPasswordPage() {
  const { token = '' } = useParams();
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const [validationError, setValidationError] = useState<string | null>(null);
  const setStaffPassword = useStaffSetPassword();
  const navigate = useNavigate();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (password.length < staffPasswordRule.minLength) {
      setValidationError(staffPasswordRule.tooShortMessage);
      return;
    }
    if (password !== repeated) {
      setValidationError(passwordsDifferMessage);
      return;
    }
    setValidationError(null);
    setStaffPassword.mutate(
      { token, password },
      {
        onSuccess: () => {
          toast.success(passwordSetMessage);
          void navigate(paths.teamLogin.href(), { replace: true });
        },
        onError: (error) => {
          toastFailure(error, errorMessage(error, "Couldn't set the password, please try again"));
        },
      },
    );
  }

  return (
    <Card className={styles.card}>
      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        <p className={styles.intro}>
          Choose the password for your staff account: at least {staffPasswordRule.minLength}{' '}
          characters. A few unrelated words make a good one.
        </p>
        <TextField
          label="New password"
          name="new-password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <TextField
          label="New password again"
          name="repeat-password"
          type="password"
          autoComplete="new-password"
          value={repeated}
          onChange={(event) => setRepeated(event.target.value)}
        />
        {validationError && (
          <p className={styles.formError} role="alert">
            {validationError}
          </p>
        )}
        <Button type="submit" isFullWidth isLoading={setStaffPassword.isPending}>
          Set password
        </Button>
      </form>
      <p className={styles.footer}>
        <Link to={paths.teamLogin.href()}>Back to staff sign-in</Link>
      </p>
    </Card>
  );
}
