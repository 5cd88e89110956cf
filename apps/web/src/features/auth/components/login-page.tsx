import { signInFormPath } from '@farmcam/contract/rules';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from '../../../lib/router/index.ts';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { paths } from '../../../config/paths.ts';
import { ApiError, errorMessage, toastFailure } from '../../../lib/api-client.ts';
import { useIsSignedIn } from '../../../lib/auth-store.ts';
import { toast } from '../../../lib/toast.tsx';
import { useRequestLogin } from '../api/request-login.ts';
import styles from './auth-pages.module.css';

export const loginFailedMessage = "Couldn't login, please try again";
export const loginLinkSentMessage = 'Login link sent, please check your e-mail';

/** Login (/): e-mails a one-time login link; offers the dashboard when already signed in. */
export function LoginPage() {
  const isSignedIn = useIsSignedIn();
  return isSignedIn ? <SignedInCard /> : <LoginForm />;
}

function SignedInCard() {
  return (
    <Card className={styles.card}>
      <p>You are signed in.</p>
      <Link to={paths.dashboard.href()} className={buttonClassName({ isFullWidth: true })}>
        Go to dashboard
      </Link>
    </Card>
  );
}

function LoginForm() {
  const [emailError, setEmailError] = useState<string | null>(null);
  const requestLogin = useRequestLogin();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setEmailError(null);
    // Read from the field itself: the address may have been typed into the prerendered page
    // before the app took it over (decision 116). Sent as typed: the server owns the e-mail rule
    // (docs/requirements.md#input-rules).
    const email = String(new FormData(event.currentTarget).get('email') ?? '');
    requestLogin.mutate(
      { email },
      {
        onSuccess: (response) => {
          toast.success(response.message || loginLinkSentMessage);
        },
        onError: (error) => {
          const status = error instanceof ApiError ? error.status : undefined;
          // A mistyped address is said once, by the field it is about (decision 115); the
          // spec's toast is for a login that failed.
          if (status === 400) {
            setEmailError(errorMessage(error, loginFailedMessage));
            return;
          }
          // A rate limit says how long to wait, which the user needs to know.
          toastFailure(
            error,
            status === 429 ? errorMessage(error, loginFailedMessage) : loginFailedMessage,
          );
        },
      },
    );
  }

  return (
    <Card className={styles.card}>
      <p className={styles.intro}>
        Enter the e-mail address of your Farmcam account and we will e-mail you a login link. Open
        it to sign in, no password needed. Each link works once and only for a short time.
      </p>
      {/*
       * A real form: before the app has started, or with JavaScript off, it posts to the server,
       * which sends the link and answers a page (decision 116); once the app runs, the same form
       * goes through the API. Never GET: the address would land in the URL.
       */}
      <form className={styles.form} method="post" action={signInFormPath} onSubmit={handleSubmit}>
        <TextField
          label="E-mail address"
          name="email"
          type="text"
          inputMode="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          error={emailError}
        />
        <Button type="submit" isFullWidth isLoading={requestLogin.isPending}>
          Send login link
        </Button>
      </form>
      <p className={styles.footer}>
        <Link to={paths.teamLogin.href()}>Staff sign-in</Link>
      </p>
    </Card>
  );
}
