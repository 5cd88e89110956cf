/**
 * The camera's usage chart asks for this month (docs/requirements.md#api data usage range): the
 * usage month the dashboard's figures count, the UTC calendar month usage days are kept in (the
 * shared rule, decision 170), not the browser's own calendar.
 */
import { usageMonthDays } from '@farmcam/contract/rules';

export interface UsageRange {
  startDate: string;
  endDate: string;
}

/**
 * docs/requirements.md#api data usage range: the first day of the current month to the last day of the month;
 * in January the start moves to December of the previous year (so the chart is not nearly empty
 * in the first days of a year).
 */
export function currentMonthUsageRange(now: Date): UsageRange {
  const month = usageMonthDays(now);
  const isJanuary = month.firstDay.slice(5, 7) === '01';
  const previousYear = Number(month.firstDay.slice(0, 4)) - 1;
  return {
    startDate: isJanuary ? `${previousYear}-12-01` : month.firstDay,
    endDate: month.lastDay,
  };
}
