import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { themeStorageKey } from '../../lib/theme.ts';
import { ThemeChoiceControl } from './theme-choice.tsx';

afterEach(() => document.documentElement.removeAttribute('data-theme'));

describe('ThemeChoiceControl', () => {
  it('starts on System and applies and keeps a chosen theme on this device', async () => {
    render(<ThemeChoiceControl />);
    const select = screen.getByLabelText<HTMLSelectElement>('Theme');
    expect(select.value).toBe('system');

    await userEvent.selectOptions(select, 'High contrast dark');
    expect(document.documentElement.getAttribute('data-theme')).toBe('dark');
    expect(window.localStorage.getItem(themeStorageKey)).toBe('dark');

    await userEvent.selectOptions(select, 'System');
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
    expect(window.localStorage.getItem(themeStorageKey)).toBeNull();
  });

  it('shows the choice kept from an earlier visit', () => {
    window.localStorage.setItem(themeStorageKey, 'light');
    render(<ThemeChoiceControl />);
    expect(screen.getByLabelText<HTMLSelectElement>('Theme').value).toBe('light');
  });
});
