/** Billing interval wording: "month" → month, anything else → year (docs/requirements.md#screens). */
export const intervalWord = (interval: string) => (interval === 'month' ? 'month' : 'year');
