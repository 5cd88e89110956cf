import type { CameraStill } from '@farmcam/contract';
import { formatPictureTime } from '../../lib/uk-time.ts';
import styles from './latest-still.module.css';

/**
 * A camera's latest still with its time (issue 27 item 5, decision 157), on the dashboard card
 * and the camera page. It comes from what the camera already recorded, so it costs no data; a
 * camera that recorded nothing shows nothing here, not an empty box.
 */
export function LatestStill({
  still,
  cameraName,
}: {
  still: CameraStill | null;
  cameraName: string;
}) {
  if (!still) return null;
  const time = formatPictureTime(still.takenAt);
  return (
    <figure className={styles.still}>
      <img
        src={still.url}
        alt={`Latest picture from ${cameraName}, ${time}`}
        width={640}
        height={360}
        loading="lazy"
        decoding="async"
        className={styles.image}
      />
      <figcaption className={styles.caption}>
        <time dateTime={still.takenAt}>{time}</time>
      </figcaption>
    </figure>
  );
}
