import { classNames } from '../ui/class-names.ts';
import styles from './plan-feature-list.module.css';

/**
 * A plan's features as the server words them from the plan's data (the answers' `features`,
 * decision 110): the activation wizard, Manage plan and the renewal page all draw them here, so
 * no screen promises more than another.
 */
export function PlanFeatureList({
  id,
  planName,
  features,
  className,
}: {
  id?: string;
  planName: string;
  features: readonly string[];
  className?: string;
}) {
  if (features.length === 0) return null;
  return (
    <ul
      id={id}
      className={classNames(styles.features, className)}
      aria-label={`${planName} includes`}
    >
      {features.map((feature) => (
        <li key={feature}>{feature}</li>
      ))}
    </ul>
  );
}
