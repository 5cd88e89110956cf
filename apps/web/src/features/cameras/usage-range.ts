/** Dates as YYYY-MM-DD in the browser's calendar (the customer's "this month"). */
const isoDate = (year: number, monthIndex: number, day: number) =>
  `${year}-${String(monthIndex + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

export interface UsageRange {
  startDate: string;
  endDate: string;
}

/**
 * docs/requirements.md#api data usage range: the first day of the current month to the last day of the month;
 * in January the start moves to December of the previous year (so the chart is not nearly empty
 * in the first days of a year).
 */
export function currentMonthUsageRange(today: Date): UsageRange {
  const year = today.getFullYear();
  const month = today.getMonth();
  const lastDay = new Date(year, month + 1, 0).getDate();
  return {
    startDate: month === 0 ? isoDate(year - 1, 11, 1) : isoDate(year, month, 1),
    endDate: isoDate(year, month, lastDay),
  };
}
