/**
 * Times as a farmer in the UK reads them, whatever the browser's own time zone (docs/decisions/093):
 * the Activity and Team screens show UK time, as the server counts UK days. The formats are the
 * shared rules' (decision 170); what is here is how some screens put them together.
 */
import { formatUkDateTime, formatUkDayMonth, formatUkTime, ukDayOf } from '@farmcam/contract/rules';

export { formatUkDateTime, ukDayOf };

const isoDayPattern = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The last UK day of an access that ends at `accessUntil`: a day as given, or the day before the
 * instant it ends (access ends at the UK midnight after its last day).
 */
export function lastUkDayOf(accessUntil: string): string {
  if (isoDayPattern.test(accessUntil)) return accessUntil;
  return ukDayOf(new Date(new Date(accessUntil).getTime() - 1));
}

/** "14:02 today", "22:15 yesterday", "3 Nov, 14:02": when a picture was taken, in UK time. */
export function formatPictureTime(instant: string | Date, now: Date = new Date()): string {
  const day = ukDayOf(instant);
  const clock = formatUkTime(instant);
  if (day === ukDayOf(now)) return `${clock} today`;
  if (day === ukDayOf(new Date(now.getTime() - 86_400_000))) return `${clock} yesterday`;
  return `${formatUkDayMonth(instant)}, ${clock}`;
}
