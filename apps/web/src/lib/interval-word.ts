/** Billing interval wording: "month" → month, anything else → year (spec §2). */
export const intervalWord = (interval: string) => (interval === 'month' ? 'month' : 'year');
