import type { DataUsageResponse } from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import { daysBetween, isoDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { notFound } from '../../errors.ts';
import { bytesPerGb, roundTo } from '../cameras/camera-state.ts';
import { requireOwnedSim } from '../ownership/ownership.ts';
import { usageRepository } from './usage.repository.ts';

export type UsageService = ReturnType<typeof createUsageService>;

export function createUsageService({ db, clock }: { db: Database; clock: Clock }) {
  return {
    /**
     * docs/requirements.md#data Usage: GB per day of the customer's camera, every day of the range up to today
     * (business time) with 0 for days without data; days still to come are left out, so a
     * chart's line stops at today.
     */
    async dailyUsage(
      customerId: string,
      iccid: string,
      range: { startDate: string; endDate: string },
    ): Promise<DataUsageResponse> {
      const sim = await requireOwnedSim(db, customerId, iccid);
      if (sim.state === 'stock') throw notFound('Camera not found');
      const today = isoDay(clock.now());
      const lastDay = range.endDate < today ? range.endDate : today;
      if (range.startDate > lastDay) return { dailyGB: {}, todaySoFar: null };
      const rows = await usageRepository.dailyBytes(db, iccid, range.startDate, lastDay);
      const bytesByDay = new Map(rows.map((row) => [row.day, Number(row.bytes)]));
      const dailyGB: Record<string, number> = {};
      for (const day of daysBetween(range.startDate, lastDay)) {
        dailyGB[day] = roundTo((bytesByDay.get(day) ?? 0) / bytesPerGb, 3);
      }
      // Today is still being counted: the chart draws it as "so far" (decision 143).
      return { dailyGB, todaySoFar: lastDay === today ? today : null };
    },
  };
}
