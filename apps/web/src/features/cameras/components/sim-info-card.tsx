import type { SimInfo } from '@farmcam/contract';
import { Card } from '../../../components/ui/card.tsx';
import styles from './info-card.module.css';

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');
const formatDate = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** docs/requirements.md#screens SIM information card. */
export function SimInfoCard({ simInfo }: { simInfo: SimInfo }) {
  return (
    <Card title="SIM information">
      <dl className={styles.list}>
        <div>
          <dt>Activation date</dt>
          <dd>{simInfo.connectionDate ? formatDate(simInfo.connectionDate) : 'Not activated'}</dd>
        </div>
        <div>
          <dt>Currently active</dt>
          <dd>{yesNo(simInfo.isActive)}</dd>
        </div>
        <div>
          <dt>Disabled by the provider</dt>
          <dd>{yesNo(simInfo.isBarred)}</dd>
        </div>
        <div>
          <dt>SIM number</dt>
          <dd className={styles.number}>{simInfo.physicalId}</dd>
        </div>
        {simInfo.terminateDate && (
          <div>
            <dt>Terminate date</dt>
            <dd>{formatDate(simInfo.terminateDate)}</dd>
          </div>
        )}
      </dl>
    </Card>
  );
}
