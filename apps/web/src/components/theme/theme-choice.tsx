import { useId, useState } from 'react';
import {
  applyThemeChoice,
  readThemeChoice,
  themeChoices,
  type ThemeChoice,
} from '../../lib/theme.ts';
import styles from './theme-choice.module.css';

/** Lets a farmer pick System / Light / High contrast dark; kept on this device (decision 125). */
export function ThemeChoiceControl() {
  const id = useId();
  const [choice, setChoice] = useState<ThemeChoice>(readThemeChoice);
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        Theme
      </label>
      <select
        id={id}
        className={styles.select}
        value={choice}
        onChange={(event) => {
          const next = event.currentTarget.value as ThemeChoice;
          setChoice(next);
          applyThemeChoice(next);
        }}
      >
        {themeChoices.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}
