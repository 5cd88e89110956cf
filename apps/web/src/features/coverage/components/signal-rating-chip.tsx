import { Chip } from '../../../components/ui/chip.tsx';
import { classNames } from '../../../components/ui/class-names.ts';
import { signalRating } from '../signal-rating.ts';
import styles from './signal-rating-chip.module.css';

/** docs/requirements.md#states label and colour for a level, with a bars icon and whether it counts as covered. */
export function SignalRatingChip({
  level,
  isStackedOnPhones = false,
}: {
  level: number | null;
  /** In a narrow column (a row of the network list), "Covered" goes under the label on phones. */
  isStackedOnPhones?: boolean;
}) {
  const rating = signalRating(level);
  return (
    <span className={classNames(styles.rating, isStackedOnPhones && styles.stacked)}>
      <span className={styles.badge}>
        <span className={classNames(styles.bars, styles[rating.tone])} aria-hidden="true">
          {[1, 2, 3, 4].map((bar) => (
            <span
              key={bar}
              className={classNames(styles.bar, bar <= rating.bars && styles.filled)}
            />
          ))}
        </span>
        <Chip tone={rating.tone}>{rating.label}</Chip>
      </span>
      <span className={styles.coverage}>{rating.isCovered ? 'Covered' : 'Not covered'}</span>
    </span>
  );
}
