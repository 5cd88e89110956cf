import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import {
  currentUserQueryOptions,
  reloadWhenAccessChanges,
  type CurrentUser,
} from './current-user.ts';

const user = (role: 'manager' | 'viewer') =>
  ({ email: 'herd@example.com', access: { role, cameraIds: [] } }) as unknown as CurrentUser;

describe('reloadWhenAccessChanges', () => {
  it('reloads every other answer when the role changed, and nothing when it did not', async () => {
    const client = new QueryClient();
    reloadWhenAccessChanges(client);
    let answer = user('manager');
    const loadUser = () =>
      client.fetchQuery({
        queryKey: currentUserQueryOptions.queryKey,
        queryFn: () => answer,
        staleTime: 0,
      });
    await loadUser();
    await client.fetchQuery({ queryKey: ['cameras', 'plans'], queryFn: () => ['card'] });
    const plans = () => client.getQueryCache().find({ queryKey: ['cameras', 'plans'] })!;

    await loadUser();
    expect(plans().state.isInvalidated).toBe(false);

    answer = user('viewer');
    await loadUser();
    expect(plans().state.isInvalidated).toBe(true);
  });
});
