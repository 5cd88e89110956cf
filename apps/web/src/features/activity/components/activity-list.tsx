import { shortSimOf } from '@farmcam/contract/rules';
import type { ActivityEntry, TeamResponse } from '@farmcam/contract';
import { Chip } from '../../../components/ui/chip.tsx';
import { EmailText } from '../../../components/ui/email-text.tsx';
import { roleNames } from '../../../lib/access.ts';
import { formatUkDateTime } from '../../../lib/uk-time.ts';
import { describeUserAgent } from '../user-agent.ts';
import { categoryNames } from './activity-filters.tsx';
import styles from './activity-page.module.css';

export interface ActivityListProps {
  entries: ActivityEntry[];
  cameras: TeamResponse['cameras'];
}

/** The entries as a table on wide screens and small labelled cards on phones (CSS only). */
export function ActivityList({ entries, cameras }: ActivityListProps) {
  const cameraNames = new Map(cameras.map((camera) => [camera.iccid, camera.nickname]));
  return (
    <table className={styles.table} aria-label="Activity">
      {/* Fixed shares of the width: a long sentence or address wraps in its column instead of
          widening the table past the page (decision 142). */}
      <colgroup>
        <col className={styles.colWhen} />
        <col className={styles.colWho} />
        <col className={styles.colWhat} />
        <col className={styles.colCamera} />
        <col className={styles.colWhere} />
      </colgroup>
      <thead>
        <tr>
          <th scope="col">When (UK time)</th>
          <th scope="col">Who</th>
          <th scope="col">What</th>
          <th scope="col">Camera</th>
          <th scope="col">From where</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td data-label="When">
              <time dateTime={entry.at}>{formatUkDateTime(entry.at)}</time>
            </td>
            <td data-label="Who">
              <Actor actor={entry.actor} />
            </td>
            <td data-label="What">
              <div>
                <span className={styles.summary}>{entry.summary}</span>
                <span className={styles.category}>{categoryNames[entry.category]}</span>
              </div>
            </td>
            <td data-label="Camera">
              {entry.iccid === null
                ? '—'
                : (cameraNames.get(entry.iccid) ?? shortSimOf(entry.iccid))}
            </td>
            <td data-label="From where">
              <Origin place={entry.place} userAgent={entry.userAgent} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Actor({ actor }: { actor: ActivityEntry['actor'] }) {
  if (actor.staffEmail !== null) {
    return (
      <span className={styles.actor}>
        <Chip tone="highlight">Staff</Chip>
        <EmailText address={actor.staffEmail} className={styles.email} />
        {actor.email && actor.email !== actor.staffEmail && (
          <span className={styles.muted}>as {actor.email}</span>
        )}
      </span>
    );
  }
  if (actor.kind === 'system') return <span className={styles.muted}>Farmcam (automatic)</span>;
  if (actor.kind === 'staff') {
    return (
      <span className={styles.actor}>
        <Chip tone="highlight">Staff</Chip>
        {actor.email && <EmailText address={actor.email} className={styles.email} />}
      </span>
    );
  }
  return (
    <span className={styles.actor}>
      {actor.email ? (
        <EmailText address={actor.email} className={styles.email} />
      ) : (
        <span>Someone</span>
      )}
      <span className={styles.muted}>{roleNames[actor.kind]}</span>
    </span>
  );
}

/** The device and the network in words (the server's, decision 142), never a raw address. */
function Origin({ place, userAgent }: { place: string | null; userAgent: string | null }) {
  const device = describeUserAgent(userAgent);
  if (place === null && device === null) return <span className={styles.muted}>—</span>;
  return (
    <span className={styles.origin}>
      {device && <span>{device}</span>}
      {place && <span className={styles.muted}>{place}</span>}
    </span>
  );
}
