import type { ReactNode } from 'react';
import styles from './chip.module.css';
import { classNames } from './class-names.ts';

/**
 * docs/requirements.md#states status colours: success green (active), danger red (attention, overdue...), warning
 * orange (paused), inactive dark grey (terminated), neutral grey (anything else); highlight for
 * badges such as NEW.
 */
export type ChipTone = 'success' | 'danger' | 'warning' | 'inactive' | 'neutral' | 'highlight';

export function Chip({ tone = 'neutral', children }: { tone?: ChipTone; children: ReactNode }) {
  return <span className={classNames(styles.chip, styles[tone])}>{children}</span>;
}
