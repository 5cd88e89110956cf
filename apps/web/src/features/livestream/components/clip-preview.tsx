import { Spinner } from '../../../components/ui/spinner.tsx';
import { useClipStatus } from '../api/clip-status.ts';
import styles from './livestream-setup.module.css';

/** The setup's 5-second preview clip: recorded in the background, played once it is ready. */
export function ClipPreview({
  cameraId,
  storageKey,
  startError,
}: {
  cameraId: string;
  storageKey: string | undefined;
  /** Set when the preview recording could not even be started. */
  startError: string | null;
}) {
  const clip = useClipStatus(cameraId, storageKey);

  let content;
  if (startError || clip.isError || clip.data?.status === 'failed') {
    content = (
      <p className={styles.previewMessage}>
        The preview is not available
        {clip.data?.error ? `: ${clip.data.error}` : ''}. This does not affect your livestream.
      </p>
    );
  } else if (clip.data?.status === 'ready' && clip.data.url) {
    content = (
      <video
        className={styles.previewVideo}
        src={clip.data.url}
        autoPlay
        muted
        loop
        playsInline
        controls
        aria-label="Livestream preview"
        data-testid="livestream-preview"
      />
    );
  } else {
    content = (
      <div className={styles.previewMessage} role="status">
        <Spinner /> Preparing the preview…
      </div>
    );
  }
  return <div className={styles.preview}>{content}</div>;
}
