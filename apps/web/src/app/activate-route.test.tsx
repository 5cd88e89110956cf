import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { authStore } from '../lib/auth-store.ts';
import {
  customerWithoutCameras,
  memberAccess,
  mockFetch,
  renderRoute,
} from '../test/test-utils.tsx';

describe('Activate, for a team member', () => {
  it('says the owner activates new SIMs instead of starting a wizard the server would refuse', async () => {
    authStore.signIn('member-token');
    mockFetch((url) =>
      customerWithoutCameras(url, {
        email: 'manager@example.com',
        role: 'customer',
        customerId: 'c1',
        impersonation: null,
        access: memberAccess('manager'),
      }),
    );
    renderRoute('/activate');
    expect(
      await screen.findByText(
        'New SIMs on this account are activated by its owner, farmer@example.com. Please ask them to add the camera.',
      ),
    ).toBeDefined();
    expect(screen.getByRole('link', { name: 'Back to your cameras' }).getAttribute('href')).toBe(
      '/dashboard',
    );
  });
});
