// One formatter per currency: making a new one per call was 2-3% of a billing cycle's CPU time.
const moneyFormats = new Map<string, Intl.NumberFormat>();

/** Spec §9: amounts are minor units shown as en-GB currency. */
export function formatMoney(minorUnits: number, currency: string): string {
  const code = currency.toUpperCase();
  let format = moneyFormats.get(code);
  if (!format) {
    format = new Intl.NumberFormat('en-GB', { style: 'currency', currency: code });
    moneyFormats.set(code, format);
  }
  return format.format(minorUnits / 100);
}

const dayFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** 1 April 2026 */
export function formatDay(date: Date | string): string {
  return dayFormat.format(typeof date === 'string' ? new Date(`${date}T00:00:00Z`) : date);
}

/** YYYY-MM-DD of a UTC instant. */
export const isoDay = (date: Date) => date.toISOString().slice(0, 10);
