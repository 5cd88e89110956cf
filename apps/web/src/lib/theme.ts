/**
 * The theme chosen on this device (decision 125): 'system' follows the phone's dark mode and
 * contrast setting; 'light' and 'dark' (high-contrast dark) are fixed. public/theme-init.js reads
 * the same key before the first paint, so keep the two in step.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

export const themeStorageKey = 'farmcam-theme';

export const themeChoices: { value: ThemeChoice; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'High contrast dark' },
];

export function readThemeChoice(): ThemeChoice {
  try {
    const stored = window.localStorage.getItem(themeStorageKey);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system';
  }
}

export function applyThemeChoice(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', choice);
  try {
    if (choice === 'system') window.localStorage.removeItem(themeStorageKey);
    else window.localStorage.setItem(themeStorageKey, choice);
  } catch {
    // Storage refused: the choice lasts for this page only.
  }
}
