import type { PlansResponse } from '@farmcam/contract';
import { Card } from '../../../components/ui/card.tsx';
import { ProgressBar } from '../../../components/ui/progress-bar.tsx';
import { countedCamerasSentence, formatGb, formatPercent } from '../camera-state.ts';
import styles from './combined-plan-card.module.css';

/** docs/requirements.md#screens: the share of the combined plan left this month, to one decimal, and the reset note. */
export function CombinedPlanCard({
  summary,
  isShared = false,
}: {
  summary: PlansResponse['overallSummary'];
  /** A member's view of someone else's cameras: their data, not "your" plan (decision 141). */
  isShared?: boolean;
}) {
  const percentText = formatPercent(summary.overallPercentageLeft);
  const hasPlans = summary.totalAllowanceGB > 0;
  return (
    <Card title={isShared ? 'Data this month' : 'Streaming Plans'}>
      {hasPlans ? (
        <>
          <p className={styles.headline}>
            <strong className={styles.percent}>{percentText}</strong>{' '}
            {isShared ? "of these cameras' plans remaining" : 'of your combined plan remaining'}
          </p>
          <ProgressBar
            value={summary.overallPercentageLeft}
            label="Combined plan remaining"
            valueText={`${percentText} remaining`}
          />
          <p className={styles.detail}>
            {formatGb(summary.totalUsageGB)} of {formatGb(summary.totalAllowanceGB)} used this
            month. {countedCamerasSentence(summary)}
          </p>
        </>
      ) : (
        <p className={styles.detail}>
          {isShared ? 'None of these cameras' : 'None of your cameras'} has a plan in use this
          month.
        </p>
      )}
      <p className={styles.note}>Plans reset on the 1st of each month</p>
    </Card>
  );
}
