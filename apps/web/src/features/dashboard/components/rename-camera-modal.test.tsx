import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildCamera } from '../testing/build-camera.ts';
import { characterCountText, RenameCameraModal } from './rename-camera-modal.tsx';

const renderModal = (nickname: string) =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <RenameCameraModal
        camera={buildCamera({ nicknameInDatabase: nickname })}
        onClose={() => {}}
      />
    </QueryClientProvider>,
  );

describe('the rename form counts as you type (decision 115)', () => {
  it('says how many characters are left, counted as the server counts them', () => {
    expect(characterCountText(0)).toBe('40 characters left');
    expect(characterCountText(39)).toBe('1 character left');
    expect(characterCountText(41)).toBe('1 character too many');
    expect(characterCountText(45)).toBe('5 characters too many');
  });

  it('keeps every character typed past 40, says how many too many and holds Update back', async () => {
    renderModal('Top gate');
    const dialog = screen.getByRole('dialog', { name: 'Update camera name' });
    const field = within(dialog).getByRole('textbox', {
      name: 'Camera name',
      description: /32 characters left/,
    });
    await userEvent.clear(field);
    // Runs of spaces count once, as the server keeps them (normaliseNickname).
    await userEvent.type(field, 'The   field by the river behind the old barn');
    expect((field as HTMLInputElement).value).toBe('The   field by the river behind the old barn');
    expect(within(dialog).getByText('2 characters too many')).toBeDefined();
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(within(dialog).getByRole('button', { name: 'Update' }).hasAttribute('disabled')).toBe(
      true,
    );
    await userEvent.type(field, '{Backspace}{Backspace}');
    expect(within(dialog).getByText('0 characters left')).toBeDefined();
    expect(field.hasAttribute('aria-invalid')).toBe(false);
    expect(within(dialog).getByRole('button', { name: 'Update' }).hasAttribute('disabled')).toBe(
      false,
    );
  });
});
