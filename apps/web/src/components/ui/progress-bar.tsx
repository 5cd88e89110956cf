import styles from './progress-bar.module.css';

export interface ProgressBarProps {
  /** Percentage, 0 to 100; values outside are clamped. */
  value: number;
  /** Accessible name, e.g. 'Combined plan remaining'. */
  label: string;
  /** Text read out instead of the bare percentage, e.g. '42.5% remaining'. */
  valueText?: string;
}

export function ProgressBar({ value, label, valueText }: ProgressBarProps) {
  const percent = Math.min(100, Math.max(0, value));
  return (
    <div
      className={styles.track}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={valueText}
    >
      <div className={styles.fill} style={{ width: `${percent}%` }} />
    </div>
  );
}
