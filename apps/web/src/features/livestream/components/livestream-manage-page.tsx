import { cameraNameOf } from '@farmcam/contract/rules';
import type { LivestreamSummary } from '@farmcam/contract';
import { Link, useParams } from '../../../lib/router/index.ts';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Loader } from '../../../components/ui/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { useAbilities } from '../../../lib/access.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { usePageTitle } from '../../../lib/page-title.ts';
import { useLivestreamCameras } from '../api/livestream-cameras.ts';
import { LivestreamCard } from './livestream-manager.tsx';
import styles from './livestreaming-page.module.css';

/**
 * Manage livestream (/livestreaming/manage/:cameraId, decision 121): a camera that already streams
 * opens its own livestream, its schedule, switch, code, public links and views, rather than the
 * set-up wizard over a working stream. A camera without one (or not this farm's) says so, with
 * the way to set one up where the person may.
 */
export function LivestreamManagePage() {
  const { cameraId = '' } = useParams();
  const cameras = useLivestreamCameras();
  const canSetUp = useAbilities().manageCameras;
  const camera = cameras.data?.cameras.find((candidate) => candidate.SIM_ICCID === cameraId);
  const name = camera ? cameraNameOf(camera.nicknameInDatabase, camera.SIM_ICCID) : null;
  usePageTitle(name && camera?.livestream?.isConfigured ? `Manage livestream — ${name}` : null);

  if (cameras.isPending) return <Loader label="Loading the livestream…" />;
  if (cameras.isError) {
    return (
      <Card title="Could not load the livestream">
        <p>{errorMessage(cameras.error, 'Please try again in a moment.')}</p>
        <Button variant="secondary" onClick={() => void cameras.refetch()}>
          Try again
        </Button>
      </Card>
    );
  }
  if (!camera || !camera.livestream?.isConfigured) {
    return (
      <Card title="No livestream for this camera">
        <p>
          {camera
            ? `${name} has no livestream set up yet.`
            : 'This camera is not one of yours with a Heavy Streaming plan, so it has no livestream here.'}
        </p>
        <div className={styles.cardActions}>
          {camera && canSetUp && (
            <Link
              to={paths.livestreamingSetup.href({ cameraId: camera.SIM_ICCID })}
              className={buttonClassName({})}
            >
              Set up a livestream for {name}
            </Link>
          )}
          <Link
            to={paths.dashboard.href()}
            className={buttonClassName({ variant: camera && canSetUp ? 'secondary' : 'primary' })}
          >
            Back to Dashboard
          </Link>
        </div>
      </Card>
    );
  }
  return (
    <div className={styles.managePage}>
      <LivestreamCard camera={camera} livestream={camera.livestream as LivestreamSummary} />
      <p>
        <Link to={paths.livestreaming.href()}>All your livestreams</Link>
      </p>
    </div>
  );
}
