import type { TeamResponse } from '@farmcam/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

export interface FilterChoices {
  /** The members' e-mails (the owner's is added by the page). */
  people: string[];
  cameras: TeamResponse['cameras'];
}

/**
 * GET /api/team, read for the Activity filters' choices: the people and cameras of the account
 * (the owner may read both). Past members stay in the log; their e-mail can still be typed in the URL.
 */
export function fetchFilterChoices(signal?: AbortSignal): Promise<FilterChoices> {
  return apiRequest<TeamResponse>('/api/team', { signal }).then((team) => ({
    people: team.members.map((member) => member.email),
    cameras: team.cameras,
  }));
}

export const filterChoicesQueryOptions = queryOptions({
  queryKey: ['activity', 'filter-choices'],
  queryFn: ({ signal }) => fetchFilterChoices(signal),
  staleTime: 5 * 60_000,
});

export function useFilterChoices(isAllowed: boolean) {
  return useQuery({ ...filterChoicesQueryOptions, enabled: isAllowed });
}
