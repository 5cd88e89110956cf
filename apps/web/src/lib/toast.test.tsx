import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DeferredToastContainer, toast } from './toast.tsx';

describe('toasts', () => {
  it('loads react-toastify on the first toast and shows it', async () => {
    render(<DeferredToastContainer position="top-center" autoClose={3500} />);

    toast.success('Login successful');

    expect(await screen.findByText('Login successful')).toBeDefined();
  });
});
