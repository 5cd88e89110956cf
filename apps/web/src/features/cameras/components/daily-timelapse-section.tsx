import type { TimelapseDay } from '@farmcam/contract';
import { formatDay } from '@farmcam/contract/rules';
import { useState } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { useTimelapses } from '../api/get-timelapses.ts';
import styles from './daily-timelapse-section.module.css';

export const emptyTimelapseText =
  'Timelapses appear the day after the camera records scheduled clips.';

const formatSize = (bytes: number) =>
  bytes >= 1_000_000
    ? `${(bytes / 1_000_000).toLocaleString('en-GB', { maximumFractionDigits: 1 })} MB`
    : `${Math.max(1, Math.round(bytes / 1000))} KB`;

const formatSeconds = (milliseconds: number) =>
  `${(milliseconds / 1000).toLocaleString('en-GB', { maximumFractionDigits: 1 })} s`;

/** What a day that has no video says instead (the server's reason when it failed). */
function statusText(timelapse: TimelapseDay): string {
  switch (timelapse.status) {
    case 'building':
      return 'Being made…';
    case 'empty':
      return 'No clips recorded that day';
    case 'failed':
      return timelapse.problem ?? 'Could not be made';
    case 'ready':
      return '';
  }
}

/**
 * Camera details: the daily timelapse of a camera with a livestream (decision 097), the chosen
 * day's player (the latest first) and every kept day with its download. Cameras without a
 * livestream show nothing: the server says which have one.
 */
export function DailyTimelapseSection({ iccid }: { iccid: string }) {
  const timelapses = useTimelapses(iccid);
  const [chosenDay, setChosenDay] = useState<string | null>(null);

  if (timelapses.isPending) return null;
  if (timelapses.isError) {
    // The camera itself is not found: the page says so already.
    if (timelapses.error instanceof ApiError && timelapses.error.status === 404) return null;
    return (
      <Card title="Daily timelapse" className={styles.section}>
        <p role="alert">{errorMessage(timelapses.error, 'Could not load the timelapses')}</p>
        <Button variant="secondary" onClick={() => void timelapses.refetch()}>
          Try again
        </Button>
      </Card>
    );
  }
  const { hasLivestream, retentionDays, timelapses: days } = timelapses.data;
  if (!hasLivestream) return null;

  const ready = days.filter((day) => day.status === 'ready' && day.videoUrl);
  const shown = ready.find((day) => day.day === chosenDay) ?? ready[0];

  return (
    <Card title="Daily timelapse" className={styles.section}>
      <p className={styles.note}>
        Made each night from the clips the camera already sent, so it uses no extra mobile data.
        Each day is kept for {retentionDays} days.
      </p>
      {shown ? (
        <figure className={styles.player}>
          <video
            key={shown.day}
            className={styles.video}
            // From its first frame (media fragment), so the player shows the day, not black.
            src={shown.videoUrl ? `${shown.videoUrl}#t=0.1` : undefined}
            controls
            playsInline
            preload="metadata"
            aria-label={`Timelapse of ${formatDay(shown.day)}`}
            data-testid="timelapse-player"
          />
          <figcaption className={styles.caption}>
            <span>{formatDay(shown.day)}</span>
            <span>
              {shown.clipCount} {shown.clipCount === 1 ? 'clip' : 'clips'}
            </span>
            {shown.durationMs !== null && <span>{formatSeconds(shown.durationMs)}</span>}
          </figcaption>
        </figure>
      ) : (
        <p>{emptyTimelapseText}</p>
      )}
      {days.length > 0 && (
        <>
          <h3 className={styles.daysTitle}>Days</h3>
          <ul className={styles.days}>
            {days.map((day) => (
              <li key={day.day} className={styles.day}>
                <span className={styles.dayName}>{formatDay(day.day)}</span>
                {day.status === 'ready' && day.downloadUrl ? (
                  <span className={styles.dayActions}>
                    {day.day !== shown?.day && (
                      <Button variant="secondary" onClick={() => setChosenDay(day.day)}>
                        <span aria-hidden="true">Watch</span>
                        <span className="visually-hidden">
                          Watch the timelapse of {formatDay(day.day)}
                        </span>
                      </Button>
                    )}
                    <a
                      className={styles.link}
                      href={day.downloadUrl}
                      download={day.downloadName ?? true}
                      aria-label={`Download the timelapse of ${formatDay(day.day)}${
                        day.sizeBytes ? ` (${formatSize(day.sizeBytes)})` : ''
                      }`}
                    >
                      Download{day.sizeBytes ? ` (${formatSize(day.sizeBytes)})` : ''}
                    </a>
                  </span>
                ) : (
                  <span className={styles.status}>{statusText(day)}</span>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  );
}
