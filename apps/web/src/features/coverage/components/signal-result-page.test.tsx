import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { companyWebsiteUrl } from '../../../config/paths.ts';
import { toast } from '../../../lib/toast.tsx';
import { jsonResponse, mockFetch, renderRoute } from '../../../test/test-utils.tsx';
import { SignalResultPage } from './signal-result-page.tsx';
import { exmoorAvailability } from './test-fixtures.ts';

function networkRow(name: string): HTMLElement {
  const list = screen.getByRole('region', { name: 'Single-network SIMs' });
  const row = within(list)
    .getAllByRole('listitem')
    .find((item) => item.firstElementChild?.textContent === name);
  if (!row) throw new Error(`No row for ${name}`);
  return row;
}

const ours = () => screen.getByRole('region', { name: 'Farmcam multi-network SIM' });

/**
 * The result page once loaded, with later navigations held: in the browser the navigation that
 * writes the query runs in a transition that can be held up (a chunk still loading right after the
 * result appeared); a loader that does not settle holds it here, deterministically.
 */
async function renderWithHeldNavigation() {
  mockFetch(() => jsonResponse(200, exmoorAvailability));
  let release = () => {};
  let isHeld = false;
  const held = new Promise<null>((resolve) => (release = () => resolve(null)));
  const { router } = renderRoute('/postcode/EX363LH', [
    {
      path: '/postcode/:postcode',
      loader: () => (isHeld ? held : null),
      Component: SignalResultPage,
    },
  ]);
  await screen.findByRole('region', { name: 'Farmcam multi-network SIM' });
  isHeld = true;
  return { router, release, setHeld: (next: boolean) => (isHeld = next) };
}

describe('Signal result page (/postcode/{postcode})', () => {
  beforeEach(() => {
    vi.spyOn(toast, 'error').mockImplementation(() => undefined);
  });

  it('shows our multi-network result first, then every network, for the first address', async () => {
    const fetchMock = mockFetch(() => jsonResponse(200, exmoorAvailability));
    renderRoute('/postcode/EX363LH');

    expect(await screen.findByRole('heading', { level: 1, name: 'Signal Availability' }));
    await screen.findByRole('region', { name: 'Farmcam multi-network SIM' });
    expect(String(fetchMock.mock.calls[0]![0])).toBe('/api/ofcom-signal/EX363LH');
    expect(screen.getByText('EX36 3LH')).toBeTruthy();
    expect(screen.getByText(/These addresses and signal levels are invented/)).toBeTruthy();
    expect((screen.getByLabelText('Address') as HTMLSelectElement).value).toBe('DEMO-EX363LH-1');
    expect((screen.getByLabelText('Outdoor') as HTMLInputElement).checked).toBe(true);

    expect(ours().textContent).toContain('Strong Signal');
    expect(ours().textContent).toContain('uses the strongest: Vodafone and EE here');
    const list = screen.getByRole('region', { name: 'Single-network SIMs' });
    expect(ours().compareDocumentPosition(list) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(networkRow('Vodafone').textContent).toContain('Strong SignalCovered');
    expect(networkRow('O2').textContent).toContain('Limited SignalCovered');
    expect(networkRow('EE').textContent).toContain('Strong Signal');
    expect(networkRow('Three').textContent).toContain('Poor SignalNot covered');
    expect(screen.queryByText('Signal booster advised for indoors')).toBeNull();
  });

  it('switches between outdoor and indoor, and to another address, keeping both in the URL', async () => {
    const user = userEvent.setup();
    mockFetch(() => jsonResponse(200, exmoorAvailability));
    const { router } = renderRoute('/postcode/EX363LH');
    await screen.findByRole('region', { name: 'Farmcam multi-network SIM' });

    await user.click(screen.getByLabelText('Indoor'));
    expect(ours().textContent).toContain('Limited Signal');
    expect(networkRow('O2').textContent).toContain('Poor Signal');
    expect(networkRow('Three').textContent).toContain('Poor Signal');
    expect(router.state.location.search).toBe('?location=indoor');

    await user.selectOptions(screen.getByLabelText('Address'), 'Lower Combe Barn, Twitchen');
    expect(ours().textContent).toContain('Poor Signal');
    expect(ours().textContent).toContain('None of the four networks gives a usable signal');
    expect(screen.getByText('Signal booster advised for indoors')).toBeTruthy();
    expect(router.state.location.search).toBe('?location=indoor&address=DEMO-EX363LH-2');

    await user.click(screen.getByLabelText('Outdoor'));
    expect(ours().textContent).toContain('Strong Signal');
    expect(networkRow('EE').textContent).toContain('Strong Signal');
    expect(networkRow('O2').textContent).toContain('Poor Signal');
  });

  it('takes a tap on Indoor at once, while the navigation that writes the URL is still pending', async () => {
    const { router, release, setHeld } = await renderWithHeldNavigation();

    await userEvent.click(screen.getByLabelText('Indoor'));
    expect((screen.getByLabelText('Indoor') as HTMLInputElement).checked).toBe(true);
    expect(ours().textContent).toContain('Limited Signal');
    expect(router.state.location.search).toBe('');
    release();
    await vi.waitFor(() => expect(router.state.location.search).toBe('?location=indoor'));
    expect((screen.getByLabelText('Indoor') as HTMLInputElement).checked).toBe(true);

    // Back and Forward still move the toggle with the URL.
    setHeld(false);
    await router.navigate('/postcode/EX363LH?location=outdoor');
    await vi.waitFor(() =>
      expect((screen.getByLabelText('Outdoor') as HTMLInputElement).checked).toBe(true),
    );
  });

  it('takes an address choice at once, while the navigation that writes the URL is still pending', async () => {
    const { router, release } = await renderWithHeldNavigation();

    const select = screen.getByLabelText('Address') as HTMLSelectElement;
    await userEvent.selectOptions(select, 'Lower Combe Barn, Twitchen');
    expect(select.value).toBe('DEMO-EX363LH-2');
    expect(router.state.location.search).toBe('');
    release();
    await vi.waitFor(() => expect(router.state.location.search).toBe('?address=DEMO-EX363LH-2'));
    expect((screen.getByLabelText('Address') as HTMLSelectElement).value).toBe('DEMO-EX363LH-2');
  });

  it('offers activation with the postcode kept, a back arrow to /postcode and an outward logo', async () => {
    mockFetch(() => jsonResponse(200, exmoorAvailability));
    renderRoute('/postcode/EX363LH');
    const activate = await screen.findByRole('link', { name: 'Activate a camera here' });
    expect(activate.getAttribute('href')).toBe('/activate?postcode=EX363LH');
    expect(screen.getByRole('link', { name: 'Back to postcode entry' }).getAttribute('href')).toBe(
      '/postcode',
    );
    const logo = screen.getByRole('link', { name: 'Farmcam website (opens in a new tab)' });
    expect(logo.getAttribute('href')).toBe(companyWebsiteUrl);
    expect(logo.getAttribute('target')).toBe('_blank');
  });

  it('normalises a postcode typed into the address bar', async () => {
    mockFetch(() => jsonResponse(200, exmoorAvailability));
    const { router } = renderRoute('/postcode/ex36%203lh?location=indoor');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/postcode/EX363LH'));
    expect(router.state.location.search).toBe('?location=indoor');
    await screen.findByRole('region', { name: 'Farmcam multi-network SIM' });
  });

  it('says when there is no coverage data for the postcode', async () => {
    mockFetch(() =>
      jsonResponse(404, {
        code: 'NOT_FOUND',
        message: 'No coverage data for this postcode (SW1A 1AA).',
      }),
    );
    renderRoute('/postcode/SW1A1AA');
    expect(
      await screen.findByRole('heading', { name: 'No coverage data for this postcode' }),
    ).toBeTruthy();
    expect(screen.getByText('No coverage data for this postcode (SW1A 1AA).')).toBeTruthy();
    expect(screen.getByLabelText(/Try another postcode/)).toBeTruthy();
  });

  it('explains an invalid postcode with the server’s message, and lets the visitor fix it', async () => {
    const user = userEvent.setup();
    mockFetch((url) =>
      url.pathname === '/api/ofcom-signal/ABC123'
        ? jsonResponse(400, {
            code: 'VALIDATION_FAILED',
            message:
              '"ABC123" is not a valid UK postcode. Check it and try again, for example SW1A 1AA.',
          })
        : jsonResponse(200, exmoorAvailability),
    );
    const { router } = renderRoute('/postcode/ABC123');
    expect(await screen.findByRole('heading', { name: 'That is not a UK postcode' })).toBeTruthy();
    expect(screen.getByText(/"ABC123" is not a valid UK postcode/)).toBeTruthy();

    await user.type(screen.getByLabelText(/Try another postcode/), 'ex36 3lh');
    await user.click(screen.getByRole('button', { name: 'Check signal' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/postcode/EX363LH'));
    await screen.findByRole('region', { name: 'Farmcam multi-network SIM' });
  });

  it('stays silent on a failed lookup (no toast) but says so, and can try again', async () => {
    const user = userEvent.setup();
    let isDown = true;
    mockFetch(() =>
      isDown
        ? jsonResponse(503, { code: 'PROVIDER_UNAVAILABLE', message: 'Try later' })
        : jsonResponse(200, exmoorAvailability),
    );
    renderRoute('/postcode/EX363LH');
    expect(
      await screen.findByRole('heading', { name: 'Coverage could not be checked just now' }),
    ).toBeTruthy();
    expect(toast.error).not.toHaveBeenCalled();

    isDown = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByRole('region', { name: 'Farmcam multi-network SIM' });
  });

  it('shows a loader while the lookup runs', async () => {
    mockFetch(() => new Promise<Response>(() => undefined));
    renderRoute('/postcode/EX363LH');
    expect(await screen.findByText('Checking the signal at EX36 3LH…')).toBeTruthy();
  });
});
