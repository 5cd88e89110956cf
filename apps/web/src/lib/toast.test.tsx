import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render as renderAlone, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { DeferredToastContainer, toast, ToastDismissButton } from './toast.tsx';

/** The container sits in the page frame, inside the app's query client (frame-layout.tsx). */
const render = (element: ReactNode) =>
  renderAlone(<QueryClientProvider client={new QueryClient()}>{element}</QueryClientProvider>);

describe('toasts', () => {
  it('loads react-toastify on the first toast and shows it', async () => {
    render(<DeferredToastContainer position="top-center" autoClose={3500} />);

    toast.success('Login successful');

    expect(await screen.findByText('Login successful')).toBeDefined();
  });

  it('closes with a 44 px button a thumb can hit (decision 115)', async () => {
    render(<DeferredToastContainer position="top-center" autoClose={false} />);

    toast.error("Couldn't login, please try again");

    expect(await screen.findByText("Couldn't login, please try again")).toBeDefined();
    const dismiss = screen.getAllByRole('button', { name: 'Dismiss' }).at(-1)!;
    // The size is the global stylesheet's (measured in the browser by e2e 01); here the class.
    expect(dismiss.className).toBe('toast-dismiss');
  });

  it('the dismiss button closes its toast', async () => {
    const closeToast = vi.fn();
    render(<ToastDismissButton closeToast={closeToast} />);
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(closeToast).toHaveBeenCalledOnce();
  });
});
