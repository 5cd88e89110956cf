import type { DataUsageResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';
import type { UsageRange } from '../usage-range.ts';

/** GET /api/data-usage/{iccid}?startDate&endDate: GB per day. */
export function fetchDataUsage(
  iccid: string,
  range: UsageRange,
  signal?: AbortSignal,
): Promise<DataUsageResponse> {
  return apiRequest<DataUsageResponse>(`/api/data-usage/${encodeURIComponent(iccid)}`, {
    query: { startDate: range.startDate, endDate: range.endDate },
    signal,
  });
}

export function dataUsageQueryOptions(iccid: string, range: UsageRange) {
  return queryOptions({
    queryKey: ['cameras', 'data-usage', iccid, range.startDate, range.endDate],
    queryFn: ({ signal }) => fetchDataUsage(iccid, range, signal),
  });
}

export function useDataUsage(iccid: string, range: UsageRange) {
  return useQuery(dataUsageQueryOptions(iccid, range));
}
