import type { PlansResponse } from '@farmcam/contract';
import { Card } from '../../../components/ui/card.tsx';
import { ProgressBar } from '../../../components/ui/progress-bar.tsx';
import { formatGb } from '../camera-state.ts';
import styles from './combined-plan-card.module.css';

/** docs/requirements.md#screens: the share of the combined plan left this month, to one decimal, and the reset note. */
export function CombinedPlanCard({ summary }: { summary: PlansResponse['overallSummary'] }) {
  const percentText = `${summary.overallPercentageLeft.toFixed(1)}%`;
  const hasPlans = summary.totalAllowanceGB > 0;
  return (
    <Card title="Streaming Plans">
      {hasPlans ? (
        <>
          <p className={styles.headline}>
            <strong className={styles.percent}>{percentText}</strong> of your combined plan
            remaining
          </p>
          <ProgressBar
            value={summary.overallPercentageLeft}
            label="Combined plan remaining"
            valueText={`${percentText} remaining`}
          />
          <p className={styles.detail}>
            {formatGb(summary.totalUsageGB, 1)} of {formatGb(summary.totalAllowanceGB, 1)} used this
            month across {summary.countedPlans} {summary.countedPlans === 1 ? 'plan' : 'plans'}.
          </p>
        </>
      ) : (
        <p className={styles.detail}>None of your cameras has a plan in use this month.</p>
      )}
      <p className={styles.note}>Plans reset on the 1st of each month</p>
    </Card>
  );
}
