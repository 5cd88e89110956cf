/**
 * How the camera details' usage card writes its days and figures (decision 143): one date style
 * ("28 Nov") for the summary, the chart and the table, today marked "so far" while the server
 * says it is still being counted, and GB rounded to two decimals.
 */
const dayFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  timeZone: 'UTC',
});

/** "28 Nov", or "28 Nov (so far)" for the day still being counted. */
export function usageDayLabel(day: string, todaySoFar: string | null): string {
  const label = dayFormat.format(new Date(`${day}T00:00:00Z`));
  return day === todaySoFar ? `${label} (so far)` : label;
}

const gbFormat = new Intl.NumberFormat('en-GB', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** A figure in GB to two decimals, without its unit ("0.42"): the table's column says GB. */
export const usageGbNumber = (gigabytes: number): string => gbFormat.format(gigabytes);

/** "0.42 GB". */
export const usageGb = (gigabytes: number): string => `${usageGbNumber(gigabytes)} GB`;
