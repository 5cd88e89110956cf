import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClientProvider } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { queryClient } from '../../../lib/query-client.ts';
import { jsonResponse, mockFetch } from '../../../test/test-utils.tsx';
import { CoverageCheck } from './coverage-check.tsx';
import { exmoorAvailability } from './test-fixtures.ts';

function renderCheck(props: Parameters<typeof CoverageCheck>[0] = {}) {
  return render(
    <QueryClientProvider client={queryClient}>
      <CoverageCheck {...props} />
    </QueryClientProvider>,
  );
}

const ours = () => screen.getByRole('region', { name: 'Farmcam multi-network SIM' });

describe('CoverageCheck (for the activation wizard)', () => {
  it('checks the postcode it is given and shows our result at the chosen address', async () => {
    const user = userEvent.setup();
    mockFetch(() => jsonResponse(200, exmoorAvailability));
    renderCheck({ initialPostcode: 'ex36 3lh' });

    expect(await screen.findByRole('region', { name: 'Farmcam multi-network SIM' })).toBeTruthy();
    expect((screen.getByLabelText('Postcode') as HTMLInputElement).value).toBe('EX363LH');
    expect(ours().textContent).toContain('Strong Signal');
    // Only our SIM: the single networks are the result page's business.
    expect(screen.queryByRole('region', { name: 'Single-network SIMs' })).toBeNull();

    await user.selectOptions(screen.getByLabelText('Address'), 'Lower Combe Barn, Twitchen');
    await user.click(screen.getByLabelText('Indoor'));
    expect(ours().textContent).toContain('Poor Signal');
    expect(screen.getByText('Signal booster advised for indoors')).toBeTruthy();
  });

  it('waits for a postcode, then reports it to the host page', async () => {
    const user = userEvent.setup();
    const fetchMock = mockFetch(() => jsonResponse(200, exmoorAvailability));
    const onPostcodeChange = vi.fn();
    renderCheck({ onPostcodeChange });
    expect(fetchMock).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name: 'Check signal' }));
    expect(screen.getByText('Please enter a postcode')).toBeTruthy();

    await user.type(screen.getByLabelText('Postcode'), 'EX36 3LH');
    await user.click(screen.getByRole('button', { name: 'Check signal' }));
    await screen.findByRole('region', { name: 'Farmcam multi-network SIM' });
    expect(onPostcodeChange).toHaveBeenCalledWith('EX363LH');
  });

  it('shows the server’s reason for an invalid postcode under the field', async () => {
    mockFetch(() =>
      jsonResponse(400, { code: 'VALIDATION_FAILED', message: '"ZZ" is not a valid UK postcode.' }),
    );
    renderCheck({ initialPostcode: 'ZZ' });
    expect(await screen.findByText('"ZZ" is not a valid UK postcode.')).toBeTruthy();
    expect(screen.getByLabelText('Postcode').getAttribute('aria-invalid')).toBe('true');
  });

  it('says when there is no data for the postcode', async () => {
    mockFetch(() =>
      jsonResponse(404, { code: 'NOT_FOUND', message: 'No coverage data for this postcode.' }),
    );
    renderCheck({ initialPostcode: 'SW1A1AA' });
    expect(await screen.findByText('No coverage data for this postcode.')).toBeTruthy();
  });
});
