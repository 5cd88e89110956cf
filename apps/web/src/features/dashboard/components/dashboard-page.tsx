import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useCurrentUser } from '../../../lib/current-user.ts';
import styles from './dashboard-page.module.css';

/** Account (/dashboard): for now who is signed in; the camera plans come with the dashboard issue. */
export function DashboardPage() {
  const currentUser = useCurrentUser();

  return (
    <Card title="Streaming Plans">
      {currentUser.isPending ? (
        <Loader label="Loading your account…" />
      ) : currentUser.isError ? (
        <p role="alert">{errorMessage(currentUser.error, 'Could not load your account')}</p>
      ) : (
        <>
          <p>
            Signed in as <strong className={styles.email}>{currentUser.data.email}</strong>
          </p>
          <p className={styles.note}>Your cameras and their streaming plans will appear here.</p>
        </>
      )}
    </Card>
  );
}
