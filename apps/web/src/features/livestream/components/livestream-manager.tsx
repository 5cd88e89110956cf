import { cameraNameOf, formatUkDayMonth, formatUkWeekdayDateTime } from '@farmcam/contract/rules';
import type { LivestreamCamera, LivestreamSummary } from '@farmcam/contract';
import { Link } from '../../../lib/router/index.ts';
import { Button, buttonClassName } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Chip } from '../../../components/ui/chip.tsx';
import { paths } from '../../../config/paths.ts';
import { useAbilities } from '../../../lib/access.ts';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { toast } from '../../../lib/toast.tsx';
import { useLivestreamCameras } from '../api/livestream-cameras.ts';
import { useSetLivestreamActive } from '../api/set-livestream-active.ts';
import { describeSchedule } from '../livestream-settings.ts';
import { PublicLinks } from './public-links.tsx';
import { useTemporaryLabel } from './use-temporary-label.ts';
import styles from './livestreaming-page.module.css';

const when = (iso: string | null, fallback: string) =>
  iso ? formatUkWeekdayDateTime(iso) : fallback;

/** Beyond the spec: each livestream's schedule, latest clip, failures and views, to manage later. */
export function LivestreamManager() {
  const cameras = useLivestreamCameras();
  if (cameras.isPending) return null;
  if (cameras.isError) {
    return (
      <p className={styles.managerError}>
        {errorMessage(cameras.error, 'Your livestreams could not be loaded.')}
      </p>
    );
  }
  const configured = cameras.data.cameras.filter((camera) => camera.livestream?.isConfigured);
  if (configured.length === 0) return null;
  return (
    <section aria-labelledby="your-livestreams">
      <h2 id="your-livestreams">Your livestreams</h2>
      <div className={styles.manager}>
        {configured.map((camera) => (
          <LivestreamCard
            key={camera.SIM_ICCID}
            camera={camera}
            livestream={camera.livestream as LivestreamSummary}
          />
        ))}
      </div>
    </section>
  );
}

function statusChip(livestream: LivestreamSummary) {
  if (livestream.isActive) return <Chip tone="success">Active</Chip>;
  if (livestream.disabledReason === 'not-seen-on-website') {
    return <Chip tone="warning">Switched off: code not seen on a website</Chip>;
  }
  return <Chip tone="inactive">Off</Chip>;
}

/** One livestream: its schedule, state, views, actions, code and public links. */
export function LivestreamCard({
  camera,
  livestream,
}: {
  camera: LivestreamCamera;
  livestream: LivestreamSummary;
}) {
  const setActive = useSetLivestreamActive();
  // Changing a livestream is for whoever may manage cameras; a Viewer copies the code and watches.
  const canManage = useAbilities().manageCameras;
  const [copyLabel, showCopy] = useTemporaryLabel<'Copy Code' | 'Copied!' | 'Copy Failed'>(
    'Copy Code',
  );
  const name = cameraNameOf(camera.nicknameInDatabase, camera.SIM_ICCID);

  function switchTo(isActive: boolean) {
    setActive.mutate(
      { camera_id: camera.SIM_ICCID, is_active: isActive },
      {
        onSuccess: () =>
          toast.success(
            isActive ? `${name}: livestream switched on` : `${name}: livestream switched off`,
          ),
        onError: (error) => {
          if (error instanceof ApiError && error.isReported) return;
          toast.error(errorMessage(error, 'Could not change the livestream'));
        },
      },
    );
  }

  async function copyCode() {
    try {
      await navigator.clipboard.writeText(livestream.embedCode);
      showCopy('Copied!');
    } catch {
      showCopy('Copy Failed');
    }
  }

  return (
    <Card
      title={
        <span className={styles.cardTitle}>
          {name} {statusChip(livestream)}
        </span>
      }
    >
      <dl className={styles.facts}>
        <div>
          <dt>Schedule</dt>
          <dd>
            {describeSchedule(livestream.scheduleHours, livestream.scheduleDays)} ·{' '}
            {livestream.durationSeconds} s {livestream.quality}
            {livestream.includeAudio ? ' with audio' : ''}
          </dd>
        </div>
        <div>
          <dt>Next recording</dt>
          <dd>
            {when(livestream.nextRecordingAt, livestream.isActive ? 'None scheduled' : 'Off')}
          </dd>
        </div>
        <div>
          <dt>Latest clip</dt>
          <dd>{when(livestream.latestClipAt, 'No clip yet')}</dd>
        </div>
        <div>
          <dt>Failed recordings (7 days)</dt>
          <dd>
            {livestream.recordingFailures}
            {livestream.lastFailure && (
              <span className={styles.failure}>
                {' '}
                Last: {livestream.lastFailure.error} ({when(livestream.lastFailure.at, '')})
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>Seen on a website</dt>
          <dd>
            {when(livestream.lastSeenOnSiteAt, 'Not yet')}
            {livestream.switchOffAt && (
              <span className={styles.muted}>
                {' '}
                (switched off {formatUkDayMonth(livestream.switchOffAt)} unless seen)
              </span>
            )}
          </dd>
        </div>
      </dl>
      <ViewsChart days={livestream.viewsByDay} />
      <div className={styles.cardActions}>
        {canManage && (
          <>
            <Link
              to={paths.livestreamingSetup.href({ cameraId: camera.SIM_ICCID })}
              className={buttonClassName({ variant: 'secondary' })}
            >
              Edit schedule
            </Link>
            <Button
              variant={livestream.isActive ? 'danger' : 'primary'}
              isLoading={setActive.isPending}
              onClick={() => switchTo(!livestream.isActive)}
            >
              {livestream.isActive ? 'Switch off' : 'Switch on'}
            </Button>
          </>
        )}
        <Button variant="secondary" onClick={() => void copyCode()} aria-live="polite">
          {copyLabel}
        </Button>
      </div>
      <PublicLinks iccid={camera.SIM_ICCID} canManage={canManage} />
    </Card>
  );
}

/** Views per day for the last 14 days: bars for the eye, a table for screen readers. */
function ViewsChart({ days }: { days: LivestreamSummary['viewsByDay'] }) {
  const total = days.reduce((sum, day) => sum + day.views, 0);
  const most = Math.max(1, ...days.map((day) => day.views));
  const dayLabel = (day: string) => formatUkDayMonth(`${day}T12:00:00Z`);
  // No views yet: say so, instead of fourteen empty bars that read as a dashed line.
  if (total === 0) {
    return (
      <div className={styles.views}>
        <p className={styles.viewsNone}>
          No views in the last 14 days yet. Views per day show here once someone watches.
        </p>
      </div>
    );
  }
  return (
    <div className={styles.views}>
      <p className={styles.viewsTotal}>
        {total} {total === 1 ? 'view' : 'views'} in the last 14 days
      </p>
      <div className={styles.viewsBars} aria-hidden="true">
        {days.map((day) => (
          <span
            key={day.day}
            className={styles.viewsBar}
            title={`${dayLabel(day.day)}: ${day.views}`}
          >
            <span style={{ height: `${(day.views / most) * 100}%` }} />
          </span>
        ))}
      </div>
      <table className="visually-hidden">
        <caption>Views per day</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Views</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.day}>
              <th scope="row">{dayLabel(day.day)}</th>
              <td>{day.views}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
