/**
 * The instants at which a billing cycle replays the time since it last ran (decision 025): noon
 * UTC of every day in between, then `until`. Noon UTC falls on the same date in the UK all year
 * (12:00 or 13:00 there), so every UK business day gets its own step: each pause starts and ends,
 * and each SIM changes, on its date. Renewals, retries and dunning steps are stamped with the
 * time they were due, whatever step finds them; a step never spans more than a day, so a retry
 * never overtakes the next step of the same invoice.
 */
import { dayMs } from '../../lib/business-calendar.ts';

const noonMs = dayMs / 2;

export function cycleSteps(from: Date | undefined, until: Date): Date[] {
  if (!from || from >= until) return [until];
  const steps: Date[] = [];
  const firstNoon = Math.floor((from.getTime() - noonMs) / dayMs) * dayMs + noonMs + dayMs;
  for (let time = firstNoon; time < until.getTime(); time += dayMs) steps.push(new Date(time));
  steps.push(until);
  return steps;
}
