import { formatUkDayMonthTime } from '@farmcam/contract/rules';
import { Link } from '../../../lib/router/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { useNotificationSettings } from '../api/notification-settings.ts';
import { ChoicesForm } from './choices-form.tsx';
import { PhoneCard } from './phone-card.tsx';
import { PushCard } from './push-card.tsx';
import styles from './notifications-page.module.css';

/**
 * Notifications (/notifications; decision 122): how this person is told of each kind of alert,
 * e-mail, push and text, with quiet hours; this device's push; the phone for texts. Each person
 * has their own, for the cameras they reach; the thresholds stay on each camera.
 */
export function NotificationsPage() {
  const settings = useNotificationSettings();

  if (settings.isPending) return <Loader label="Loading your notifications…" />;
  if (settings.isError) {
    return (
      <Card title="Your notifications">
        <p role="alert">
          {errorMessage(settings.error, 'Could not load your notifications, please try again.')}
        </p>
        <Button
          variant="secondary"
          onClick={() => void settings.refetch()}
          isLoading={settings.isFetching}
        >
          Try again
        </Button>
      </Card>
    );
  }
  const data = settings.data;
  return (
    <div className={styles.page}>
      <p className={styles.intro}>
        Choose how each alert reaches you. These are your own choices: other people on the account
        choose theirs.
      </p>
      {data.recentFailures.length > 0 && (
        <Card title="Alerts that did not arrive">
          <ul className={styles.failures}>
            {data.recentFailures.map((failure) => (
              <li key={`${failure.at}-${failure.title}`}>
                <strong>{failure.title}</strong> ({failure.channel === 'sms' ? 'text' : 'push'},{' '}
                {formatUkDayMonthTime(failure.at)}): {failure.reason}
              </li>
            ))}
          </ul>
        </Card>
      )}
      <ChoicesForm key={choicesKey(data)} settings={data} />
      <PushCard settings={data} />
      <PhoneCard settings={data} />
      <Card title="Alert levels for each camera">
        <p className={styles.note}>
          When a camera counts as silent, how much data is too much and how long without a clip are
          set on each camera, under Alerts.
        </p>
        {data.cameras.length === 0 ? (
          <p>You have no cameras yet.</p>
        ) : (
          <ul className={styles.cameras}>
            {data.cameras.map((camera) => (
              <li key={camera.iccid}>
                <Link to={paths.camera.href(camera.iccid)}>{camera.name}</Link>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

/** A new answer (saved, or changed elsewhere) starts the form again from it. */
const choicesKey = (data: { choices: object[]; quietHours: object | null }) =>
  JSON.stringify([data.choices, data.quietHours]);
