import { cameraNameOf } from '@farmcam/contract/rules';
import type { LivestreamCamera } from '@farmcam/contract';
import { Link } from '../../../lib/router/index.ts';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Chip } from '../../../components/ui/chip.tsx';
import { classNames } from '../../../components/ui/class-names.ts';
import { ProgressBar } from '../../../components/ui/progress-bar.tsx';
import type { SimulatedProgress } from '../use-simulated-progress.ts';
import { paths } from '../../../config/paths.ts';
import { setupStage } from '../setup-messages.ts';
import styles from './livestream-setup.module.css';

/** Step 1 (docs/requirements.md#livestream-setup, Select): the Heavy Streaming cameras, and Set Up Camera with its progress. */
export function SelectStep({
  cameras,
  selectedId,
  onSelect,
  onSetUp,
  progress,
  isBusy,
}: {
  cameras: LivestreamCamera[];
  selectedId: string | null;
  onSelect: (cameraId: string) => void;
  onSetUp: () => void;
  progress: SimulatedProgress;
  isBusy: boolean;
}) {
  if (cameras.length === 0) {
    return (
      <Card title="No Heavy Streaming Cameras Found">
        <p>
          Livestreaming is included in the Heavy Streaming plan. None of your cameras has an active
          Heavy Streaming plan: switch a camera’s plan from the dashboard to set up a livestream.
        </p>
        <Link to={paths.dashboard.href()} className={buttonClassName({ variant: 'primary' })}>
          Back to Dashboard
        </Link>
      </Card>
    );
  }

  return (
    <Card title="Setup Livestreaming">
      <p>
        Livestreaming is included in your Heavy Streaming plan. Choose the camera to show on your
        website.
      </p>
      <fieldset className={styles.fieldset} disabled={isBusy}>
        <legend className={styles.legend}>Your Heavy Streaming cameras</legend>
        <div className={styles.cameraList}>
          {cameras.map((camera) => {
            const isSelected = camera.SIM_ICCID === selectedId;
            return (
              <div
                key={camera.SIM_ICCID}
                className={classNames(styles.cameraOption, isSelected && styles.cameraOptionOn)}
              >
                <label className={styles.cameraLabel}>
                  <input
                    type="radio"
                    name="camera"
                    value={camera.SIM_ICCID}
                    checked={isSelected}
                    onChange={() => onSelect(camera.SIM_ICCID)}
                  />
                  <span className={styles.cameraText}>
                    <span className={styles.cameraName}>
                      {cameraNameOf(camera.nicknameInDatabase, camera.SIM_ICCID)}
                    </span>
                    <span className={styles.cameraId}>Camera ID {camera.SIM_ICCID}</span>
                  </span>
                  <span className={styles.cameraChips}>
                    <Chip tone="success">{camera.stripeSubscription.productName}</Chip>
                    {camera.livestream?.isActive && <Chip tone="highlight">Livestream on</Chip>}
                  </span>
                </label>
                {/* Set up already: its own page, rather than setting it up again (decision 121). */}
                {camera.livestream?.isConfigured && (
                  <Link
                    to={paths.livestreamingManage.href(camera.SIM_ICCID)}
                    className={styles.manageLink}
                    aria-label={`Manage livestream for ${cameraNameOf(camera.nicknameInDatabase, camera.SIM_ICCID)}`}
                  >
                    Manage livestream
                  </Link>
                )}
              </div>
            );
          })}
        </div>
      </fieldset>
      <div className={styles.actions}>
        <Button onClick={onSetUp} isLoading={isBusy}>
          Set Up Camera
        </Button>
      </div>
      {progress.hasStarted && (
        <div className={styles.progress}>
          <ProgressBar
            value={progress.value}
            label="Camera setup progress"
            valueText={`${Math.round(progress.value)}%, ${setupStage(progress.value, progress.hasFailed)}`}
          />
          <p className={styles.stage} aria-live="polite">
            {setupStage(progress.value, progress.hasFailed)}
          </p>
        </div>
      )}
    </Card>
  );
}
