import type { LiveViewHeartbeatResponse, StartLiveViewResponse } from '@farmcam/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { ApiError, apiUrl } from '../../../lib/api-client.ts';
import { leaveLiveView, sendLiveViewHeartbeat } from '../api/live-view.ts';
import { formatHours, formatLiveBytes, formatWatchTime } from '../live-view-figures.ts';
import styles from './live-player.module.css';

/** While the camera is starting, ask often: the first picture should show within 3 s. */
const startingPollMs = 500;

/**
 * The live player (decisions 151, 152, 158): hls.js (loaded here only) where the browser has Media
 * Source Extensions, native HLS where it has not (older iPhones). It keeps the viewer's place with a heartbeat, shows what
 * the view costs, asks "Still watching?" when the server says so, and recovers by itself when a
 * worker hands the camera to another (the playlist stalls a few seconds, then goes on).
 */
export default function LivePlayer({
  iccid,
  cameraName,
  session,
  onStop,
  onWatchAgain,
}: {
  iccid: string;
  cameraName: string;
  session: StartLiveViewResponse;
  onStop: () => void;
  onWatchAgain: () => void;
}) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const [beat, setBeat] = useState<LiveViewHeartbeatResponse | null>(null);
  const [connectionProblem, setConnectionProblem] = useState(false);
  const [playerError, setPlayerError] = useState<string | null>(null);
  const [isPlaying, setIsPlaying] = useState(false);
  const hasLeft = useRef(false);
  const state = beat?.state ?? 'starting';
  const isOver = state === 'ended' || state === 'failed';

  const leave = useCallback(() => {
    if (hasLeft.current) return;
    hasLeft.current = true;
    void leaveLiveView(iccid, session.viewerId).catch(() => undefined);
  }, [iccid, session.viewerId]);

  const sendBeat = useCallback(
    async (stillWatching = false) => {
      try {
        const answer = await sendLiveViewHeartbeat(iccid, session.viewerId, stillWatching);
        setConnectionProblem(false);
        setBeat(answer);
        if (answer.state === 'ended' || answer.state === 'failed') hasLeft.current = true;
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          hasLeft.current = true;
          setBeat((previous) => ({
            ...(previous ?? emptyBeat),
            state: 'ended',
            reason: 'This live view has ended.',
          }));
          return;
        }
        setConnectionProblem(true);
      }
    },
    [iccid, session.viewerId],
  );

  // The heartbeat: often while starting, then every few seconds; none once the view is over.
  useEffect(() => {
    if (isOver) return;
    const delay = state === 'starting' ? startingPollMs : session.heartbeatSeconds * 1000;
    const timer = setTimeout(() => void sendBeat(), beat === null ? 0 : delay);
    return () => clearTimeout(timer);
  }, [beat, isOver, state, session.heartbeatSeconds, sendBeat]);

  // Leaving the page or closing it leaves the view, so the camera stops spending data.
  useEffect(() => {
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      leave();
    };
  }, [leave]);

  // The video, once the first segment is stored.
  const isLive = state === 'live';
  useEffect(() => {
    const video = videoRef.current;
    if (!isLive || !video) return;
    let detach: (() => void) | undefined;
    let isCancelled = false;
    void attachStream(video, apiUrl(session.playlistUrl), setPlayerError).then((cleanUp) => {
      if (isCancelled) cleanUp();
      else detach = cleanUp;
    });
    return () => {
      isCancelled = true;
      detach?.();
    };
  }, [isLive, session.playlistUrl]);

  if (isOver) {
    return (
      <div className={styles.over}>
        <p role="status">{beat?.reason ?? 'This live view has ended.'}</p>
        {beat && beat.bytesThisView > 0 && (
          <p className={styles.muted}>
            You watched for {formatWatchTime(beat.secondsThisView)} and it used{' '}
            {formatLiveBytes(beat.bytesThisView)} of data.
          </p>
        )}
        <div className={styles.actions}>
          <Button onClick={onWatchAgain}>Watch again</Button>
          <Button variant="secondary" onClick={onStop}>
            Close
          </Button>
        </div>
      </div>
    );
  }

  return (
    <div className={styles.player}>
      <div className={styles.frame}>
        <video
          ref={videoRef}
          className={styles.video}
          muted
          playsInline
          autoPlay
          aria-label={`Live view of ${cameraName}`}
          onPlaying={() => setIsPlaying(true)}
          onWaiting={() => setIsPlaying(false)}
        />
        {!isPlaying && !playerError && (
          <div className={styles.overlay} role="status">
            <Spinner />
            <span>
              {state === 'starting' ? 'Connecting to the camera…' : 'Waiting for the picture…'}
            </span>
          </div>
        )}
        {isPlaying && (
          <span className={styles.liveBadge} aria-hidden="true">
            Live
          </span>
        )}
      </div>
      {playerError && (
        <p role="alert" className={styles.error}>
          {playerError}
        </p>
      )}
      {connectionProblem && (
        <p role="status" className={styles.muted}>
          The connection to Farmcam was lost. Trying again…
        </p>
      )}
      <dl className={styles.cost} aria-label="What this view costs">
        <div>
          <dt>This view used</dt>
          <dd data-testid="live-view-data">{formatLiveBytes(beat?.bytesThisView ?? 0)}</dd>
        </div>
        {beat?.allowance.dataLeftBytes != null && (
          <div>
            <dt>Data left this month</dt>
            <dd>{formatLiveBytes(beat.allowance.dataLeftBytes)}</dd>
          </div>
        )}
        {beat?.allowance.secondsLeft != null && (
          <div>
            <dt>Live view left this month</dt>
            <dd>{formatHours(beat.allowance.secondsLeft)}</dd>
          </div>
        )}
        {beat && beat.viewersNow > 1 && (
          <div>
            <dt>Watching now</dt>
            <dd>{beat.viewersNow} people</dd>
          </div>
        )}
      </dl>
      <div className={styles.actions}>
        <Button
          variant="secondary"
          onClick={() => {
            leave();
            onStop();
          }}
        >
          Stop watching
        </Button>
      </div>
      <Modal
        isOpen={beat?.isStillWatchingDue === true}
        onClose={() => {
          leave();
          onStop();
        }}
        title="Still watching?"
      >
        <p>
          Live view has been on for 10 minutes and keeps using {cameraName}’s data. It stops in a
          minute unless you carry on.
        </p>
        <div className={styles.actions}>
          <Button onClick={() => void sendBeat(true)}>Keep watching</Button>
          <Button
            variant="secondary"
            onClick={() => {
              leave();
              onStop();
            }}
          >
            Stop watching
          </Button>
        </div>
      </Modal>
    </div>
  );
}

const emptyBeat: LiveViewHeartbeatResponse = {
  state: 'ended',
  reason: null,
  viewersNow: 0,
  bytesThisView: 0,
  secondsThisView: 0,
  isStillWatchingDue: false,
  allowance: {
    hoursIncluded: null,
    secondsUsed: 0,
    secondsLeft: null,
    dataAllowanceBytes: null,
    dataUsedBytes: 0,
    dataLeftBytes: null,
  },
};

/**
 * Plays the playlist in the video: with hls.js (its own chunk) wherever the browser has Media
 * Source Extensions, natively where it has not (an iPhone before iOS 17.1). Native first would be
 * wrong: Chromium now answers canPlayType for HLS yet cannot parse fMP4 segments (decision 158).
 * Returns how to stop. Network errors (a worker handing the camera over, a mobile network
 * dropping) are retried by hls.js and then by a fresh load a second later.
 */
async function attachStream(
  video: HTMLVideoElement,
  playlistUrl: string,
  onError: (message: string | null) => void,
): Promise<() => void> {
  const hasMediaSource = 'MediaSource' in window || 'ManagedMediaSource' in window;
  if (!hasMediaSource) {
    if (video.canPlayType('application/vnd.apple.mpegurl') === '') {
      onError('This browser cannot play live video. Try an up-to-date Chrome, Firefox or Safari.');
      return () => undefined;
    }
    video.src = playlistUrl;
    void video.play().catch(() => undefined);
    return () => {
      video.removeAttribute('src');
      video.load();
    };
  }
  const { default: Hls } = await import('hls.js');
  if (!Hls.isSupported()) {
    onError('This browser cannot play live video. Try an up-to-date Chrome, Firefox or Safari.');
    return () => undefined;
  }
  const hls = new Hls({
    // The CSP allows no blob: workers; the main thread copes with one stream.
    enableWorker: false,
    // One-second segments: start a second and a half behind the newest, catch up when later.
    liveSyncDuration: 1.5,
    liveMaxLatencyDuration: 5,
    maxLiveSyncPlaybackRate: 1.5,
    backBufferLength: 10,
    manifestLoadingMaxRetry: 6,
    levelLoadingMaxRetry: 6,
    fragLoadingMaxRetry: 6,
  });
  let retry: ReturnType<typeof setTimeout> | undefined;
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (!data.fatal) return;
    if (data.type === Hls.ErrorTypes.MEDIA_ERROR) {
      hls.recoverMediaError();
      return;
    }
    // A stalled or missing playlist (a worker taking the camera over): load again shortly.
    clearTimeout(retry);
    retry = setTimeout(() => {
      hls.loadSource(playlistUrl);
      hls.startLoad();
    }, 1000);
  });
  hls.on(Hls.Events.FRAG_BUFFERED, () => onError(null));
  hls.loadSource(playlistUrl);
  hls.attachMedia(video);
  void video.play().catch(() => undefined);
  return () => {
    clearTimeout(retry);
    hls.destroy();
  };
}
