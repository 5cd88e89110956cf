import { formatUkDayMonthTime } from '@farmcam/contract/rules';
import type { NotificationSettingsResponse } from '@farmcam/contract';
import { useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import {
  useAddPushDevice,
  useRemovePushDevice,
  useSendTestNotification,
} from '../api/notification-settings.ts';
import {
  currentPushEndpoint,
  pushSupport,
  subscribeThisBrowser,
  unsubscribeThisBrowser,
} from '../api/push-subscription.ts';
import styles from './notifications-page.module.css';

/** Push on this device (the installed app or this browser), and the person's other devices. */
export function PushCard({ settings }: { settings: NotificationSettingsResponse }) {
  const add = useAddPushDevice();
  const remove = useRemovePushDevice();
  const test = useSendTestNotification();
  const [isSubscribing, setIsSubscribing] = useState(false);
  const [thisEndpoint, setThisEndpoint] = useState<string | null>(null);
  const support = pushSupport();
  useEffect(() => {
    void currentPushEndpoint().then(setThisEndpoint, () => setThisEndpoint(null));
  }, [settings.push.devices.length]);
  const isThisOn = settings.push.devices.some((device) => device.endpoint === thisEndpoint);

  async function turnOn() {
    if (!settings.push.publicKey) return;
    setIsSubscribing(true);
    try {
      const subscription = await subscribeThisBrowser(settings.push.publicKey);
      await add.mutateAsync(subscription);
      setThisEndpoint(subscription.endpoint);
      toast.success('Push is on for this device');
    } catch (error) {
      toast.error(errorMessage(error, 'Could not turn on push on this device'));
    } finally {
      setIsSubscribing(false);
    }
  }

  let status;
  if (!settings.push.isAvailable) {
    status = <p>Push notifications are not switched on for this portal yet.</p>;
  } else if (support === 'unsupported') {
    status = (
      <p>
        This browser cannot receive push notifications. On an iPhone, add the portal to your Home
        Screen first (Share, then Add to Home Screen) and open it from there.
      </p>
    );
  } else if (support === 'denied' && !isThisOn) {
    status = (
      <p>
        Notifications are blocked for this site. Allow them in the browser’s site settings, then
        come back here.
      </p>
    );
  } else if (isThisOn) {
    status = <p>Push is on for this device.</p>;
  } else {
    status = (
      <div className={styles.actions}>
        <Button onClick={() => void turnOn()} isLoading={isSubscribing}>
          Turn on push on this device
        </Button>
      </div>
    );
  }

  return (
    <Card title="Push notifications">
      {status}
      {settings.push.devices.length > 0 && (
        <>
          <h3 className={styles.subheading}>Your devices</h3>
          <ul className={styles.devices}>
            {settings.push.devices.map((device) => (
              <li key={device.id}>
                <span>
                  <strong>{device.label}</strong>
                  {device.endpoint === thisEndpoint ? ' (this device)' : ''}
                  <br />
                  <span className={styles.note}>
                    Added {formatUkDayMonthTime(device.createdAt)}
                    {device.lastSuccessAt
                      ? `, last push ${formatUkDayMonthTime(device.lastSuccessAt)}`
                      : ''}
                  </span>
                </span>
                <Button
                  variant="secondary"
                  aria-label={`Remove ${device.label}`}
                  isLoading={remove.isPending && remove.variables === device.id}
                  onClick={() =>
                    remove.mutate(device.id, {
                      onSuccess: () => {
                        if (device.endpoint === thisEndpoint) void unsubscribeThisBrowser();
                        toast.success(`${device.label} removed`);
                      },
                      onError: (error) =>
                        toast.error(errorMessage(error, 'Could not remove the device')),
                    })
                  }
                >
                  Remove
                </Button>
              </li>
            ))}
          </ul>
          <Button
            variant="secondary"
            isLoading={test.isPending && test.variables === 'push'}
            onClick={() =>
              test.mutate('push', {
                onSuccess: () => toast.success('Test push sent to your devices'),
                onError: (error) => toast.error(errorMessage(error, 'Could not send a test')),
              })
            }
          >
            Send a test push
          </Button>
        </>
      )}
    </Card>
  );
}
