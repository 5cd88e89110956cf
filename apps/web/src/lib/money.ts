/** Spec §9: prices are minor units shown as en-GB currency (amount / 100). */
export function formatMoney(minorUnits: number, currency: string): string {
  return new Intl.NumberFormat('en-GB', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(minorUnits / 100);
}

const dayFormat = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A YYYY-MM-DD date (or an ISO time) as "1 April 2026". */
export function formatDay(value: string): string {
  return dayFormat.format(new Date(value.length === 10 ? `${value}T00:00:00Z` : value));
}

/** Billing interval wording: "month" → Monthly, anything else → Annually (spec §2). */
export const intervalWord = (interval: string) => (interval === 'month' ? 'month' : 'year');
