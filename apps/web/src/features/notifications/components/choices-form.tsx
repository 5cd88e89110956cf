import type {
  NotificationChoice,
  NotificationSettingsResponse,
  QuietHours,
} from '@farmcam/contract';
import { useId, useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import { useSaveNotificationSettings } from '../api/notification-settings.ts';
import styles from './notifications-page.module.css';

const channels = [
  { key: 'email', label: 'E-mail' },
  { key: 'push', label: 'Push' },
  { key: 'sms', label: 'Text' },
] as const;

const defaultQuietHours: QuietHours = { start: '22:00', end: '07:00' };

/** Each kind of alert with its channels, then quiet hours; saved together. */
export function ChoicesForm({ settings }: { settings: NotificationSettingsResponse }) {
  const id = useId();
  const save = useSaveNotificationSettings();
  const [choices, setChoices] = useState<NotificationChoice[]>(() =>
    settings.choices.map(({ kind, email, push, sms, overridesQuietHours }) => ({
      kind,
      email,
      push,
      sms,
      overridesQuietHours,
    })),
  );
  const [isQuiet, setIsQuiet] = useState(settings.quietHours !== null);
  const [quiet, setQuiet] = useState<QuietHours>(settings.quietHours ?? defaultQuietHours);
  const change = (kind: string, patch: Partial<NotificationChoice>) =>
    setChoices((current) =>
      current.map((choice) => (choice.kind === kind ? { ...choice, ...patch } : choice)),
    );
  const noPhone = settings.phone === null;
  const noDevice = settings.push.devices.length === 0;

  return (
    <form
      aria-label="How alerts reach you"
      className={styles.stack}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(
          { choices, quietHours: isQuiet ? quiet : null },
          {
            onSuccess: () => toast.success('Notifications saved'),
            onError: (error) => toast.error(errorMessage(error, 'Could not save your choices')),
          },
        );
      }}
    >
      <Card title="How each alert reaches you">
        {(noPhone || noDevice) && (
          <p className={styles.note}>
            {noDevice && 'Push reaches the devices where you turn it on below. '}
            {noPhone && 'Texts need your mobile number, added and checked below.'}
          </p>
        )}
        <ul className={styles.kinds}>
          {settings.choices.map((definition) => {
            const choice = choices.find((item) => item.kind === definition.kind)!;
            return (
              <li key={definition.kind}>
                <fieldset className={styles.kind}>
                  <legend className={styles.kindTitle}>{definition.title}</legend>
                  <p className={styles.kindText} id={`${id}-${definition.kind}-text`}>
                    {definition.description}
                  </p>
                  <div className={styles.channels}>
                    {channels.map((channel) => (
                      <label key={channel.key} className={styles.check}>
                        <input
                          type="checkbox"
                          checked={choice[channel.key]}
                          aria-describedby={`${id}-${definition.kind}-text`}
                          onChange={(event) =>
                            change(definition.kind, { [channel.key]: event.target.checked })
                          }
                        />
                        <span>{channel.label}</span>
                      </label>
                    ))}
                  </div>
                  <label className={`${styles.check} ${styles.urgent}`}>
                    <input
                      type="checkbox"
                      checked={choice.overridesQuietHours}
                      onChange={(event) =>
                        change(definition.kind, { overridesQuietHours: event.target.checked })
                      }
                    />
                    <span>
                      Urgent: push and text during quiet hours too
                      {definition.isUrgentByDefault ? ' (suggested)' : ''}
                    </span>
                  </label>
                </fieldset>
              </li>
            );
          })}
        </ul>
      </Card>
      <Card title="Quiet hours">
        <label className={styles.check}>
          <input
            type="checkbox"
            checked={isQuiet}
            onChange={(event) => setIsQuiet(event.target.checked)}
          />
          <span>Hold push and texts during quiet hours</span>
        </label>
        {isQuiet && (
          <div className={styles.times}>
            <label className={styles.field}>
              <span>From</span>
              <input
                type="time"
                className={styles.control}
                value={quiet.start}
                required
                onChange={(event) => setQuiet({ ...quiet, start: event.target.value })}
              />
            </label>
            <label className={styles.field}>
              <span>Until</span>
              <input
                type="time"
                className={styles.control}
                value={quiet.end}
                required
                onChange={(event) => setQuiet({ ...quiet, end: event.target.value })}
              />
            </label>
          </div>
        )}
        <p className={styles.note}>
          UK time. Push and texts wait until quiet hours end, except alerts you mark urgent. E-mails
          are never held.
        </p>
      </Card>
      <div>
        <Button type="submit" isLoading={save.isPending}>
          Save notifications
        </Button>
      </div>
    </form>
  );
}
