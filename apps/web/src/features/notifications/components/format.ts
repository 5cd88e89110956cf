const ukDateTime = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/London',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

/** "28 Nov, 07:12" in UK time. */
export const formatUkDateTime = (iso: string) => ukDateTime.format(new Date(iso));
