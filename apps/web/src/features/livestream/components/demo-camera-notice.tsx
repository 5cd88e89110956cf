import { useDemoCamera } from '../api/demo-camera.ts';
import styles from './demo-camera-notice.module.css';

/**
 * Says plainly when the server cannot run the demo camera (a missing system package), instead of
 * a live demo or preview that never comes (docs/decisions/060). Nothing while it can, or while the
 * answer is unknown.
 */
export function DemoCameraNotice() {
  const demoCamera = useDemoCamera();
  const problem = demoCamera.data?.problem;
  if (!problem) return null;
  return (
    <p className={styles.notice} role="status">
      {problem}
    </p>
  );
}
