import { formatOutage, formatUkTime } from '@farmcam/contract/rules';
import { useQueryClient } from '@tanstack/react-query';
import { formatUkDateTime, ukDayOf } from '../../lib/uk-time.ts';
import { useLastKnownState, useNow, type LastKnownState } from '../../lib/persisted-queries.ts';
import styles from './last-known-notice.module.css';

/** "Updated 5 minutes ago", "Updated just now". */
export function updatedAgoText(updatedAt: number, now: number): string {
  const elapsed = now - updatedAt;
  return elapsed < 60_000 ? 'Updated just now' : `Updated ${formatOutage(elapsed)} ago`;
}

/** "at 14:02" today (UK time), "on 27 Nov 2026, 14:02" before. */
function whenText(updatedAt: number, now: number): string {
  return ukDayOf(new Date(updatedAt)) === ukDayOf(new Date(now))
    ? `at ${formatUkTime(new Date(updatedAt))}`
    : `on ${formatUkDateTime(new Date(updatedAt))}`;
}

export function lastKnownText(state: LastKnownState, now: number): string | null {
  if (state.kind === 'refreshing') return updatedAgoText(state.updatedAt, now);
  if (state.kind === 'offline') {
    return state.updatedAt === null
      ? 'You are offline: this page loads when the signal is back.'
      : `You are offline: showing what we knew ${whenText(state.updatedAt, now)}.`;
  }
  return null;
}

/**
 * Under the page's title (decision 119): how old what the page shows is, while answers the device
 * kept from an earlier visit are on show and the network is asked again, and plainly that there is
 * no connection when it does not answer. Nothing when the page is up to date.
 */
export function LastKnownNotice() {
  const state = useLastKnownState(useQueryClient());
  const now = useNow(state.kind !== 'current');
  const text = lastKnownText(state, now);
  return (
    <p
      role="status"
      className={state.kind === 'offline' ? styles.offline : styles.notice}
      hidden={text === null}
    >
      {text}
    </p>
  );
}
