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
      // The reason, and what to do, is said once above the preview (submitted-step.tsx).
      <p className={styles.previewMessage}>The preview could not be recorded.</p>
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
