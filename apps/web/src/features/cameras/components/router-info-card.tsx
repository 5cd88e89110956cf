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

/** Spec §2 Router information card; asked for only while the SIM is active and not barred. */
export function RouterInfoCard({ iccid, isAvailable }: { iccid: string; isAvailable: boolean }) {
  const routerInfo = useRouterInfo(iccid, isAvailable);

  let body;
  if (!isAvailable) {
    body = <p className={styles.note}>Router information is shown while the SIM is active.</p>;
  } else if (routerInfo.isPending) {
    body = <Loader label="Fetching router info…" />;
  } else if (routerInfo.isError) {
    body = <p role="alert">{errorMessage(routerInfo.error, 'Could not load the router info')}</p>;
  } else if (!routerInfo.data.routerInfo) {
    body = <p className={styles.note}>The router has not reported yet.</p>;
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
