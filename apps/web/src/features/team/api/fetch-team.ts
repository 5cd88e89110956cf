import type { TeamResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

export const teamQueryKey = ['team'] as const;

/** GET /api/team: the account's members (invited, active, expired) and the cameras one can be given. */
export function fetchTeam(signal?: AbortSignal): Promise<TeamResponse> {
  return apiRequest<TeamResponse>('/api/team', { signal });
}

export const teamQueryOptions = queryOptions({
  queryKey: teamQueryKey,
  queryFn: ({ signal }) => fetchTeam(signal),
});

/** Asked for only once user-data says this person may manage the team (else the server's 403 would toast). */
export function useTeam(isAllowed: boolean) {
  return useQuery({ ...teamQueryOptions, enabled: isAllowed });
}
