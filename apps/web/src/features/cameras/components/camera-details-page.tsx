import { cameraNameOf } from '@farmcam/contract/rules';
import { lazy, Suspense, useMemo, useRef } from 'react';
import { Link, useParams } from '../../../lib/router/index.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { useDataUsage } from '../api/get-data-usage.ts';
import { useLiveViewStatus } from '../api/live-view.ts';
import { useSimInfo } from '../api/get-sim-info.ts';
import { currentMonthUsageRange, type UsageRange } from '../usage-range.ts';
import { DailyTimelapseSection } from './daily-timelapse-section.tsx';
import { LiveViewSection } from './live-view-section.tsx';
import { CameraDataCapBanner } from '../../../components/budget/data-cap-banner.tsx';
import styles from './camera-details-page.module.css';
import { CameraAlertsCard, CameraSilenceBanner } from './camera-alerts-card.tsx';
import { RouterInfoCard } from './router-info-card.tsx';
import { SimInfoCard } from './sim-info-card.tsx';
import { UsageTable } from './usage-table.tsx';
import { usageDayLabel, usageGb } from '../usage-days.ts';
import { useIsNearViewport } from './use-is-near-viewport.ts';

// Chart.js (about 60 KB gzip) loads with this page only, and only once the chart's place comes
// near the screen: on a phone it is below the SIM and router cards (decision 083).
const UsageChart = lazy(() => import('./usage-chart.tsx'));

export const fetchingText = 'Fetching info...';

/** Camera details (/camera/{cameraId}, docs/requirements.md#screens): SIM and router cards and this month's usage. */
export function CameraDetailsPage() {
  const { cameraId = '' } = useParams();
  const simInfo = useSimInfo(cameraId);
  // Watch live sits above the cards: shown with them, or its answer arriving a moment later
  // pushed the page down under the farmer's thumb (Lighthouse counted a shift of 0.08). Only its
  // first try is waited for: not an answer waiting for the network to come back (paused), nor
  // the retries of one that failed, which the section shows itself.
  const liveView = useLiveViewStatus(cameraId);
  const isLiveViewComing =
    liveView.isPending && liveView.fetchStatus === 'fetching' && liveView.failureCount === 0;

  if (simInfo.isPending || isLiveViewComing) return <Loader label={fetchingText} />;
  // A failure with an earlier answer (kept on the device) keeps showing that answer (decision 119).
  if (simInfo.data === undefined) {
    const isMissing = simInfo.error instanceof ApiError && simInfo.error.status === 404;
    return (
      <Card title={isMissing ? 'Camera not found' : 'Could not load this camera'}>
        <p role="alert">
          {isMissing
            ? 'There is no camera with this SIM number on your account.'
            : errorMessage(simInfo.error, 'Please try again.')}
        </p>
        <div className={styles.errorActions}>
          {!isMissing && (
            <Button variant="secondary" onClick={() => void simInfo.refetch()}>
              Try again
            </Button>
          )}
          <Link to={paths.dashboard.href()}>Back to your cameras</Link>
        </div>
      </Card>
    );
  }

  const { simInfo: sim, nickname } = simInfo.data;
  const name = cameraNameOf(nickname, sim.physicalId);
  return (
    <div className={styles.page}>
      <p className={styles.cameraName}>{name}</p>
      <CameraSilenceBanner iccid={cameraId} />
      <CameraDataCapBanner iccid={cameraId} name={name} />
      <LiveViewSection iccid={cameraId} cameraName={name} />
      <div className={styles.cards}>
        <SimInfoCard simInfo={sim} />
        <RouterInfoCard iccid={cameraId} />
        <CameraAlertsCard iccid={cameraId} />
      </div>
      <UsageSection iccid={cameraId} />
      <DailyTimelapseSection iccid={cameraId} />
    </div>
  );
}

function UsageSection({ iccid }: { iccid: string }) {
  const range = useMemo<UsageRange>(() => currentMonthUsageRange(new Date()), []);
  const usage = useDataUsage(iccid, range);
  const days = usage.data ? Object.entries(usage.data.dailyGB) : [];
  const total = days.reduce((sum, [, gigabytes]) => sum + gigabytes, 0);
  // Older answers kept on the device may not have it (decision 119).
  const todaySoFar = usage.data?.todaySoFar ?? null;

  return (
    <Card title="Overview" className={styles.usageCard}>
      {usage.isPending ? (
        <Loader label="Loading data usage…" />
      ) : usage.data === undefined ? (
        <div>
          <p role="alert">{errorMessage(usage.error, 'Could not load the data usage')}</p>
          <Button variant="secondary" onClick={() => void usage.refetch()}>
            Try again
          </Button>
        </div>
      ) : days.length === 0 ? (
        <p>No data usage recorded for this period yet.</p>
      ) : (
        <>
          <p className={styles.usageSummary}>
            {usageGb(total)} used from {usageDayLabel(days[0]![0], null)} to{' '}
            {usageDayLabel(days.at(-1)![0], todaySoFar)}
          </p>
          <UsageChartArea dailyGB={usage.data.dailyGB} todaySoFar={todaySoFar} />
          <UsageTable dailyGB={usage.data.dailyGB} todaySoFar={todaySoFar} />
        </>
      )}
    </Card>
  );
}

/** The chart's place keeps its height (CSS) before and while Chart.js loads: no layout shift. */
function UsageChartArea({
  dailyGB,
  todaySoFar,
}: {
  dailyGB: Record<string, number>;
  todaySoFar: string | null;
}) {
  const areaRef = useRef<HTMLDivElement>(null);
  const isNear = useIsNearViewport(areaRef);
  return (
    <div ref={areaRef} className={styles.chart}>
      {isNear && (
        <Suspense fallback={<Loader label="Drawing the chart…" />}>
          <UsageChart dailyGB={dailyGB} todaySoFar={todaySoFar} />
        </Suspense>
      )}
    </div>
  );
}
