import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { toast } from '../../lib/toast.tsx';
import { renderRoute } from '../../test/test-utils.tsx';

describe('toasts in the page frame (decision 115)', () => {
  it('come after the page title, inside the page, never before it', async () => {
    renderRoute('/');
    const title = await screen.findByRole('heading', { level: 1, name: 'Sign in' });

    toast.error("Couldn't login, please try again");

    const message = await screen.findByText("Couldn't login, please try again");
    expect(title.compareDocumentPosition(message) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(message.closest('main')).toBe(title.closest('main'));
  });
});
