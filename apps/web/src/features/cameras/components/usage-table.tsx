import styles from './usage-table.module.css';

/** The chart's figures as a table, folded away: for screen readers and exact numbers. */
export function UsageTable({ dailyGB }: { dailyGB: Record<string, number> }) {
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
              <th scope="row">
                {new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
                  weekday: 'short',
                  day: 'numeric',
                  month: 'short',
                  timeZone: 'UTC',
                })}
              </th>
              <td>
                {gigabytes.toLocaleString('en-GB', {
                  minimumFractionDigits: 2,
                  maximumFractionDigits: 2,
                })}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
