import { formatUkDayMonthTime } from '@farmcam/contract/rules';
import type { NotificationSettingsResponse } from '@farmcam/contract';
import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { TextField } from '../../../components/ui/text-field.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import {
  useRemovePhone,
  useSendTestNotification,
  useStartPhoneVerification,
  useVerifyPhone,
} from '../api/notification-settings.ts';
import styles from './notifications-page.module.css';

/** The mobile number for texts: added, checked with a six-digit code, removed; STOP shown. */
export function PhoneCard({ settings }: { settings: NotificationSettingsResponse }) {
  const start = useStartPhoneVerification();
  const verify = useVerifyPhone();
  const remove = useRemovePhone();
  const test = useSendTestNotification();
  const [phone, setPhone] = useState('');
  const [code, setCode] = useState('');
  const [phoneError, setPhoneError] = useState<string | null>(null);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [isChanging, setIsChanging] = useState(false);

  if (!settings.sms.isAvailable) {
    return (
      <Card title="Text messages">
        <p>Text messages are not switched on for this portal yet.</p>
      </Card>
    );
  }

  const verified = settings.phone;
  const pending = settings.pendingPhone;
  const showNumberForm = !pending && (!verified || isChanging);

  return (
    <Card title="Text messages">
      {verified && (
        <div className={styles.stack}>
          <p>
            Texts go to <strong>{verified.display}</strong>. {settings.sms.sentToday} of{' '}
            {settings.sms.dailyLimit} sent today; more alerts today come by e-mail instead.
          </p>
          {verified.isStopped && (
            <p role="status" className={styles.warning}>
              This phone replied STOP
              {verified.stoppedAt ? ` on ${formatUkDayMonthTime(verified.stoppedAt)}` : ''}, so we
              send it no texts. Reply START to one of our texts to get them again.
            </p>
          )}
          <div className={styles.actions}>
            <Button
              variant="secondary"
              disabled={verified.isStopped}
              isLoading={test.isPending && test.variables === 'sms'}
              onClick={() =>
                test.mutate('sms', {
                  onSuccess: () => toast.success('Test text sent'),
                  onError: (error) => toast.error(errorMessage(error, 'Could not send a test')),
                })
              }
            >
              Send a test text
            </Button>
            {!isChanging && (
              <Button variant="secondary" onClick={() => setIsChanging(true)}>
                Change number
              </Button>
            )}
            <Button
              variant="danger"
              isLoading={remove.isPending}
              onClick={() =>
                remove.mutate(undefined, {
                  onSuccess: () => toast.success('Number removed: no more texts'),
                  onError: (error) => toast.error(errorMessage(error, 'Could not remove it')),
                })
              }
            >
              Remove number
            </Button>
          </div>
        </div>
      )}
      {showNumberForm && (
        <form
          aria-label="Mobile number"
          className={styles.stack}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            setPhoneError(null);
            start.mutate(phone, {
              onSuccess: () => {
                setIsChanging(false);
                setCode('');
              },
              onError: (error) =>
                setPhoneError(errorMessage(error, 'Could not send the code, please try again.')),
            });
          }}
        >
          {!verified && (
            <p className={styles.note}>
              Add a UK mobile number. We text it a six-digit code to check it is yours before any
              alert is sent there.
            </p>
          )}
          <TextField
            label="Mobile number"
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            placeholder="07700 900123"
            value={phone}
            error={phoneError}
            onChange={(event) => setPhone(event.target.value)}
          />
          <div className={styles.actions}>
            <Button type="submit" isLoading={start.isPending}>
              Text me a code
            </Button>
            {isChanging && (
              <Button variant="secondary" onClick={() => setIsChanging(false)}>
                Cancel
              </Button>
            )}
          </div>
        </form>
      )}
      {pending && (
        <form
          aria-label="Code from the text"
          className={styles.stack}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            setCodeError(null);
            verify.mutate(code, {
              onSuccess: () => toast.success('Number checked: alerts can now be texted'),
              onError: (error) => setCodeError(errorMessage(error, 'Could not check the code.')),
            });
          }}
        >
          <p>
            We texted a code to <strong>{pending.display}</strong>. It works until{' '}
            {formatUkDayMonthTime(pending.expiresAt)}.
          </p>
          <TextField
            label="Six-digit code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            error={codeError}
            onChange={(event) => setCode(event.target.value)}
          />
          <div className={styles.actions}>
            <Button type="submit" isLoading={verify.isPending}>
              Check the code
            </Button>
            <Button
              variant="secondary"
              isLoading={start.isPending}
              onClick={() =>
                start.mutate(pending.display, {
                  onSuccess: () => toast.success('A new code is on its way'),
                  onError: (error) => setCodeError(errorMessage(error, 'Could not send a code.')),
                })
              }
            >
              Send a new code
            </Button>
            <Button
              variant="secondary"
              onClick={() => remove.mutate(undefined, { onSuccess: () => setCode('') })}
            >
              Use another number
            </Button>
          </div>
        </form>
      )}
    </Card>
  );
}
