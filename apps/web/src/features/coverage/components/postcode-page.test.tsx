import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { companyWebsiteUrl } from '../../../config/paths.ts';
import { authStore } from '../../../lib/auth-store.ts';
import { jsonResponse, mockFetch, renderRoute } from '../../../test/test-utils.tsx';
import { exmoorAvailability } from './test-fixtures.ts';

const demoSource = {
  source: 'bundled',
  isDemoData: true,
  demoPostcodes: [
    { postcode: 'EX363LH', area: 'Exmoor, North Devon (hill farms)', shows: 'Varied coverage' },
    { postcode: 'GL71AN', area: 'Cirencester town centre', shows: 'Strong everywhere' },
  ],
};

describe('Postcode entry page (/postcode)', () => {
  it('is public: "Check Signal Availability" without signing in, logo linking out', async () => {
    mockFetch(() => jsonResponse(200, demoSource));
    renderRoute('/postcode');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Check Signal Availability' }),
    ).toBeTruthy();
    const logo = screen.getByRole('link', { name: 'Farmcam website (opens in a new tab)' });
    expect(logo.getAttribute('href')).toBe(companyWebsiteUrl);
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/');
    // The title is set by an effect, which may run after the heading is on screen.
    await vi.waitFor(() =>
      expect(document.title).toBe('Check Signal Availability · Farmcam Portal'),
    );
  });

  it('says "Please enter a postcode" on an empty submit', async () => {
    const user = userEvent.setup();
    mockFetch(() => jsonResponse(200, demoSource));
    const { router } = renderRoute('/postcode');
    await user.click(await screen.findByRole('button', { name: 'Check signal' }));
    expect(screen.getByText('Please enter a postcode')).toBeTruthy();
    expect(screen.getByLabelText('Postcode').getAttribute('aria-invalid')).toBe('true');
    expect(router.state.location.pathname).toBe('/postcode');

    // Spaces and punctuation alone are empty too.
    await user.type(screen.getByLabelText('Postcode'), ' - ');
    await user.click(screen.getByRole('button', { name: 'Check signal' }));
    expect(screen.getByText('Please enter a postcode')).toBeTruthy();
  });

  it('upper-cases and strips what is typed, then goes to the result', async () => {
    const user = userEvent.setup();
    mockFetch((url) =>
      url.pathname === '/api/coverage/source'
        ? jsonResponse(200, demoSource)
        : jsonResponse(200, exmoorAvailability),
    );
    const { router } = renderRoute('/postcode');
    const field = await screen.findByLabelText('Postcode');
    await user.type(field, 'ex36 3-lh');
    expect((field as HTMLInputElement).value).toBe('EX363LH');
    await user.click(screen.getByRole('button', { name: 'Check signal' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/postcode/EX363LH'));
    expect(await screen.findByRole('region', { name: 'Farmcam multi-network SIM' })).toBeTruthy();
  });

  it('lists the demo postcodes when the demo data is in use', async () => {
    mockFetch(() => jsonResponse(200, demoSource));
    renderRoute('/postcode');
    const link = await screen.findByRole('link', { name: 'EX36 3LH' });
    expect(link.getAttribute('href')).toBe('/postcode/EX363LH');
    expect(screen.getByText('Cirencester town centre')).toBeTruthy();
  });

  it('lists no demo postcodes with real data, and offers the dashboard when signed in', async () => {
    authStore.signIn('customer-token');
    mockFetch(() => jsonResponse(200, { source: 'ofcom', isDemoData: false, demoPostcodes: [] }));
    renderRoute('/postcode');
    expect(await screen.findByRole('link', { name: 'Go to dashboard' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Demo postcodes' })).toBeNull();
  });
});
