import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate } from '../../../lib/router/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage, toastFailure } from '../../../lib/api-client.ts';
import { authStore } from '../../../lib/auth-store.ts';
import { useStaffLogin } from '../api/staff-login.ts';
import styles from './auth-pages.module.css';

export const missingCredentialsMessage = 'Please enter both email and password';

/** Staff sign-in (/team-login), the spec's "Admin login" screen. */
export function StaffLoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [validationError, setValidationError] = useState<string | null>(null);
  const staffLogin = useStaffLogin();
  const navigate = useNavigate();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (email.trim() === '' || password === '') {
      setValidationError(missingCredentialsMessage);
      return;
    }
    setValidationError(null);
    staffLogin.mutate(
      { email, password },
      {
        onSuccess: (session) => {
          authStore.signIn(session.token);
          void navigate(paths.staff.href());
        },
        onError: (error) => {
          // docs/requirements.md#roles: a failed admin login also drops whatever session was stored.
          authStore.clear();
          toastFailure(error, errorMessage(error, "Couldn't sign in, please try again"));
        },
      },
    );
  }

  return (
    <Card className={styles.card}>
      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        <TextField
          label="E-mail address"
          name="email"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        {validationError && (
          <p className={styles.formError} role="alert">
            {validationError}
          </p>
        )}
        <Button type="submit" isFullWidth isLoading={staffLogin.isPending}>
          Sign in
        </Button>
      </form>
      <p className={styles.footer}>
        <Link to={paths.login.href()}>Back to Magic Link Login</Link>
      </p>
    </Card>
  );
}
