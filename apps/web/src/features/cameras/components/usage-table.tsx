import { usageDayLabel, usageGbNumber } from '../usage-days.ts';
import styles from './usage-table.module.css';

/** The chart's figures as a table, folded away: for screen readers and exact numbers. */
export function UsageTable({
  dailyGB,
  todaySoFar,
}: {
  dailyGB: Record<string, number>;
  todaySoFar: string | null;
}) {
  return (
    <details className={styles.details}>
      <summary>Daily figures</summary>
      <table className={styles.table}>
        <caption className="visually-hidden">Data used per day, in GB</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">GB</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(dailyGB).map(([day, gigabytes]) => (
            <tr key={day}>
              <th scope="row">{usageDayLabel(day, todaySoFar)}</th>
              <td>{usageGbNumber(gigabytes)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
