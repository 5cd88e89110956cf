import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useRouterInfo } from '../api/get-router-info.ts';
import styles from './info-card.module.css';

const fields = [
  ['Cameras Network Name', 'Local network name'],
  ['Network Provider', 'Network in use'],
  ['Signal Strength', 'Signal strength'],
  ['Signal Strength (dBm)', 'Signal strength (dBm)'],
] as const;

/**
 * docs/requirements.md#screens Router information card. When the router cannot be seen (SIM barred, paused or
 * terminated) the server says why, in words that agree with the SIM card (decision 014).
 */
export function RouterInfoCard({ iccid }: { iccid: string }) {
  const routerInfo = useRouterInfo(iccid, true);

  let body;
  if (routerInfo.isPending) {
    body = <Loader label="Fetching router info…" />;
  } else if (routerInfo.isError) {
    body = <p role="alert">{errorMessage(routerInfo.error, 'Could not load the router info')}</p>;
  } else if (!routerInfo.data.routerInfo) {
    body = (
      <p className={styles.note}>
        {routerInfo.data.unavailableReason ?? 'The router has not reported yet.'}
      </p>
    );
  } else {
    const info = routerInfo.data.routerInfo;
    body = (
      <>
        <dl className={styles.list}>
          {fields.map(([key, label]) => (
            <div key={key}>
              <dt>{label}</dt>
              <dd>{info[key]}</dd>
            </div>
          ))}
        </dl>
        {routerInfo.data.updatedAt && (
          <p className={styles.note}>
            Reported{' '}
            {new Date(routerInfo.data.updatedAt).toLocaleString('en-GB', {
              day: 'numeric',
              month: 'short',
              hour: '2-digit',
              minute: '2-digit',
            })}
          </p>
        )}
      </>
    );
  }
  return <Card title="Router information">{body}</Card>;
}
