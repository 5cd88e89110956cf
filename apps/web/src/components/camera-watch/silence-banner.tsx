import { formatDay, formatUkTime } from '@farmcam/contract/rules';
import styles from './silence-banner.module.css';

export interface CameraSilence {
  /** When the camera was last heard (ISO instant). */
  since: string;
  /** Whole hours since then, as the server counted them. */
  hours: number;
}

/** "8 hours (since 07:12)", with the day once it is not today's. */
export function silenceText(silence: CameraSilence, now: Date = new Date()): string {
  const hours = `${silence.hours} hour${silence.hours === 1 ? '' : 's'}`;
  const isToday = formatDay(silence.since) === formatDay(now);
  const since = isToday
    ? formatUkTime(silence.since)
    : `${formatUkTime(silence.since)} on ${formatDay(silence.since)}`;
  return `No data from this camera for ${hours} (since ${since}). Check its power and signal.`;
}

/**
 * A camera that has gone silent (decision 094), on the dashboard card and the details page: the
 * server decides when (plansV2 and the alert settings carry the open silence); this only says it.
 */
export function SilenceBanner({ silence }: { silence: CameraSilence }) {
  return (
    <p className={styles.banner} role="status">
      <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true" className={styles.icon}>
        <path fill="currentColor" d="M10 1.5 19 17.5H1zm-1 6v5h2v-5zm0 6.5v2h2v-2z" />
      </svg>
      <span>{silenceText(silence)}</span>
    </p>
  );
}
