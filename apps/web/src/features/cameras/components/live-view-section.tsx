import type { LiveViewAllowance, StartLiveViewResponse } from '@farmcam/contract';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from '../../../lib/router/index.ts';
import { LatestStill } from '../../../components/camera-still/latest-still.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { startLiveView, useLiveViewStatus, useSetLiveViewEnabled } from '../api/live-view.ts';
import { formatHours, formatLiveBytes } from '../live-view-figures.ts';
import styles from './live-view-section.module.css';

// The player and hls.js load when someone presses Watch live, never with the page (or the
// dashboard): a farmer who only checks the data pays nothing for them (decision 158).
const LivePlayer = lazy(() => import('./live-player.tsx'));

/**
 * Watch live (issue 27): the camera's live view with what it costs, or why it cannot be watched
 * and what to do, as the server says. The owner's switch for this camera sits here too.
 */
export function LiveViewSection({ iccid, cameraName }: { iccid: string; cameraName: string }) {
  const status = useLiveViewStatus(iccid);
  const [searchParams, setSearchParams] = useSearchParams();
  const [watching, setWatching] = useState<StartLiveViewResponse | null>(null);
  const [startError, setStartError] = useState<string | null>(null);
  const [isStarting, setIsStarting] = useState(false);
  const hasAutoStarted = useRef(false);

  const watch = useCallback(async () => {
    setIsStarting(true);
    setStartError(null);
    try {
      setWatching(await startLiveView(iccid));
    } catch (error) {
      setStartError(
        error instanceof ApiError
          ? errorMessage(error, 'Live view could not start. Please try again.')
          : 'Live view could not start. Please try again.',
      );
      void status.refetch();
    } finally {
      setIsStarting(false);
    }
  }, [iccid, status]);

  // "Watch live" on the dashboard opens this page with ?watch=live: start at once.
  const canWatch = status.data?.canWatch === true;
  useEffect(() => {
    if (hasAutoStarted.current || !canWatch || searchParams.get('watch') !== 'live') return;
    hasAutoStarted.current = true;
    setSearchParams(
      (params) => {
        params.delete('watch');
        return params;
      },
      { replace: true },
    );
    void watch();
  }, [canWatch, searchParams, setSearchParams, watch]);

  const stop = useCallback(() => {
    setWatching(null);
    void status.refetch();
  }, [status]);

  return (
    <Card title="Watch live" className={styles.card}>
      {status.isPending ? (
        <Loader label="Checking live view…" />
      ) : status.data === undefined ? (
        <div>
          <p role="alert">{errorMessage(status.error, 'Could not check live view.')}</p>
          <Button variant="secondary" onClick={() => void status.refetch()}>
            Try again
          </Button>
        </div>
      ) : watching ? (
        <Suspense fallback={<Loader label="Opening the player…" />}>
          <LivePlayer
            iccid={iccid}
            cameraName={cameraName}
            session={watching}
            onStop={stop}
            onWatchAgain={() => {
              setWatching(null);
              void watch();
            }}
          />
        </Suspense>
      ) : (
        <>
          <LatestStill still={status.data.still} cameraName={cameraName} />
          {status.data.canWatch ? (
            <>
              <p className={styles.lead}>
                See {cameraName} as it is now. Live view uses the camera’s mobile data while you
                watch.
              </p>
              <AllowanceSummary allowance={status.data.allowance} />
              <div className={styles.actions}>
                <Button onClick={() => void watch()} isLoading={isStarting}>
                  Watch live
                </Button>
                {status.data.viewersNow > 0 && (
                  <span className={styles.muted}>
                    {status.data.viewersNow === 1
                      ? '1 person is watching now'
                      : `${status.data.viewersNow} people are watching now`}
                  </span>
                )}
              </div>
              {startError && (
                <p role="alert" className={styles.error}>
                  {startError}
                </p>
              )}
            </>
          ) : (
            <div className={styles.refusal}>
              <p>{status.data.reason}</p>
              {status.data.action && (
                <Link to={status.data.action.path}>{status.data.action.label}</Link>
              )}
            </div>
          )}
          {status.data.canChangeSetting && (
            <LiveViewSwitch iccid={iccid} isEnabled={status.data.isEnabled} />
          )}
        </>
      )}
    </Card>
  );
}

function AllowanceSummary({ allowance }: { allowance: LiveViewAllowance }) {
  return (
    <dl className={styles.figures}>
      {allowance.secondsLeft !== null && allowance.hoursIncluded !== null && (
        <div>
          <dt>Live view left this month</dt>
          <dd>
            {formatHours(allowance.secondsLeft)} of {allowance.hoursIncluded} h
          </dd>
        </div>
      )}
      {allowance.dataLeftBytes !== null && (
        <div>
          <dt>Data left this month</dt>
          <dd>{formatLiveBytes(allowance.dataLeftBytes)}</dd>
        </div>
      )}
    </dl>
  );
}

function LiveViewSwitch({ iccid, isEnabled }: { iccid: string; isEnabled: boolean }) {
  const setEnabled = useSetLiveViewEnabled(iccid);
  return (
    <div className={styles.switch}>
      <label>
        <input
          type="checkbox"
          checked={setEnabled.isPending ? setEnabled.variables : isEnabled}
          disabled={setEnabled.isPending}
          onChange={(event) => setEnabled.mutate(event.currentTarget.checked)}
        />
        Live view on for this camera
      </label>
      <p className={styles.muted}>
        Turn it off to keep anyone on your team from spending this camera’s data on live view.
      </p>
      {setEnabled.isError && (
        <p role="alert" className={styles.error}>
          {errorMessage(setEnabled.error, 'The change was not saved. Please try again.')}
        </p>
      )}
    </div>
  );
}
