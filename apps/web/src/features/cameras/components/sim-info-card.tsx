import type { SimInfo } from '@farmcam/contract';
import { formatDay } from '@farmcam/contract/rules';
import { Link } from '../../../lib/router/index.ts';
import { buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { paths } from '../../../config/paths.ts';
import { useAbilities } from '../../../lib/access.ts';
import styles from './info-card.module.css';

/**
 * docs/requirements.md#screens SIM information card. "Currently active" and "Disabled by the
 * provider" are the server's words, which agree with each other and say why (decision 111); a
 * switched-off SIM says when and offers a new SIM.
 */
export function SimInfoCard({ simInfo }: { simInfo: SimInfo }) {
  const abilities = useAbilities();
  const { statusWords } = simInfo;
  return (
    <Card title="SIM information">
      <dl className={styles.list}>
        <div>
          <dt>Activation date</dt>
          <dd>{simInfo.connectionDate ? formatDay(simInfo.connectionDate) : 'Not activated'}</dd>
        </div>
        <div>
          <dt>Currently active</dt>
          <dd>{statusWords.currentlyActive}</dd>
        </div>
        <div>
          <dt>Disabled by the provider</dt>
          <dd>{statusWords.disabledByProvider}</dd>
        </div>
        <div>
          <dt>SIM number</dt>
          <dd className={styles.number}>{simInfo.physicalId}</dd>
        </div>
        {simInfo.terminateDate && (
          <div>
            <dt>Terminate date</dt>
            <dd>{formatDay(simInfo.terminateDate)}</dd>
          </div>
        )}
      </dl>
      {statusWords.note && (
        <div className={styles.switchedOff}>
          <p role="status">{statusWords.note}</p>
          {simInfo.state === 'terminated' && abilities.activateSims && (
            <Link to={paths.activate.href()} className={buttonClassName({ variant: 'primary' })}>
              Activate a new SIM
            </Link>
          )}
        </div>
      )}
    </Card>
  );
}
