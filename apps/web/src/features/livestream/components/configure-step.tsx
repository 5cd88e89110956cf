import { cameraNameOf, livestreamDurations } from '@farmcam/contract/rules';
import type { LivestreamCamera } from '@farmcam/contract';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Chip } from '../../../components/ui/chip.tsx';
import { classNames } from '../../../components/ui/class-names.ts';
import { ProgressBar } from '../../../components/ui/progress-bar.tsx';
import type { SimulatedProgress } from '../use-simulated-progress.ts';
import { estimateMonthlyData, formatGb } from '../data-estimate.ts';
import {
  hourLabel,
  scheduleDayChoices,
  scheduleHourChoices,
  toggled,
  type LivestreamSettings,
} from '../livestream-settings.ts';
import { configureStage } from '../setup-messages.ts';
import { ChoiceGroup, ToggleGroup } from './toggle-group.tsx';
import styles from './livestream-setup.module.css';

/** "1 day", "5 days". */
const count = (value: number, noun: string) => `${value} ${noun}${value === 1 ? '' : 's'}`;

/** Step 2 (docs/requirements.md#livestream-setup, Configure): quality, clip length, audio, hours and days, and the data it takes. */
export function ConfigureStep({
  camera,
  settings,
  onChange,
  onSubmit,
  progress,
  isBusy,
  previewState,
}: {
  camera: LivestreamCamera;
  settings: LivestreamSettings;
  onChange: (settings: LivestreamSettings) => void;
  onSubmit: () => void;
  progress: SimulatedProgress;
  isBusy: boolean;
  previewState: 'idle' | 'starting' | 'started' | 'failed';
}) {
  const update = (changes: Partial<LivestreamSettings>) => onChange({ ...settings, ...changes });
  const cameraName = cameraNameOf(camera.nicknameInDatabase, camera.SIM_ICCID);

  return (
    <Card title="Configure Livestreaming">
      <p>
        Choose when <strong>{cameraName}</strong> records the clip your website loops, and how.
        Times are UK time.
      </p>
      {previewState === 'starting' && (
        <p className={styles.note} role="status">
          Recording a 5-second preview…
        </p>
      )}
      <fieldset className={styles.settings} disabled={isBusy}>
        <legend className="visually-hidden">Livestream settings</legend>
        <ChoiceGroup
          legend="Quality"
          name="quality"
          value={settings.quality}
          onChange={(quality) => update({ quality })}
          options={[
            { value: 'SD', label: 'SD' },
            {
              value: 'HD',
              isDisabled: true,
              label: (
                <>
                  HD <Chip tone="neutral">Coming Soon</Chip>
                </>
              ),
            },
          ]}
        />
        <ChoiceGroup
          legend="Clip length"
          name="duration"
          value={settings.duration}
          onChange={(duration) => update({ duration })}
          options={livestreamDurations.map((seconds) => ({
            value: seconds,
            label: `${seconds} seconds`,
          }))}
        />
        <label className={styles.switchRow}>
          <input
            type="checkbox"
            role="switch"
            checked={settings.includeAudio}
            onChange={(event) => update({ includeAudio: event.target.checked })}
          />
          <span>Include audio</span>
        </label>
        <ToggleGroup
          legend="Hours"
          hint="A clip is recorded at the start of each chosen hour."
          layout="hours"
          options={scheduleHourChoices.map((hour) => ({
            value: hour,
            label: hourLabel(hour),
            accessibleLabel: `${hourLabel(hour)}:00`,
          }))}
          selected={settings.scheduleHours}
          onToggle={(hour) => update({ scheduleHours: toggled(settings.scheduleHours, hour) })}
        />
        <ToggleGroup
          legend="Days"
          options={scheduleDayChoices.map((choice) => ({
            value: choice.day,
            label: choice.short,
            accessibleLabel: choice.label,
          }))}
          selected={settings.scheduleDays}
          onToggle={(day) => update({ scheduleDays: toggled(settings.scheduleDays, day) })}
        />
      </fieldset>
      <DataEstimate camera={camera} settings={settings} />
      <div className={styles.actions}>
        <Button onClick={onSubmit} isLoading={isBusy}>
          Start Livestream
        </Button>
      </div>
      {progress.hasStarted && (
        <div className={styles.progress}>
          <ProgressBar
            value={progress.value}
            label="Stream configuration progress"
            valueText={`${Math.round(progress.value)}%, ${configureStage(progress.value, progress.hasFailed)}`}
          />
          <p className={styles.stage} aria-live="polite">
            {configureStage(progress.value, progress.hasFailed)}
          </p>
        </div>
      )}
    </Card>
  );
}

/** The mobile data the schedule will use each month, against the plan's allowance. */
function DataEstimate({
  camera,
  settings,
}: {
  camera: LivestreamCamera;
  settings: LivestreamSettings;
}) {
  const hoursPerDay = settings.scheduleHours.length;
  const daysPerWeek = settings.scheduleDays.length;
  if (hoursPerDay === 0 || daysPerWeek === 0) {
    return (
      <div className={classNames(styles.estimate, styles.estimateWarning)} role="status">
        No recordings are scheduled: choose at least one hour and one day, or the livestream will
        keep showing its last clip.
      </div>
    );
  }
  const estimate = estimateMonthlyData({
    hoursPerDay,
    daysPerWeek,
    durationSeconds: settings.duration,
    quality: settings.quality,
    includeAudio: settings.includeAudio,
    allowanceGb: camera.dataAllowanceGb,
  });
  const share = estimate.percentOfAllowance;
  const isHeavy = share !== null && share >= 25;
  return (
    <div
      className={classNames(styles.estimate, isHeavy && styles.estimateWarning)}
      role="status"
      aria-live="polite"
    >
      <p className={styles.estimateFigure}>
        About {formatGb(estimate.gbPerMonth)} of mobile data a month
        {share !== null &&
          ` — ${share < 0.1 ? 'under 0.1' : share.toFixed(1)}% of this camera’s ${camera.dataAllowanceGb} GB allowance`}
      </p>
      <p className={styles.estimateDetail}>
        {count(estimate.recordingsPerMonth, 'recording')} of {settings.duration} s in{' '}
        {settings.quality}
        {settings.includeAudio ? ' with audio' : ''} ({hoursPerDay} a day,{' '}
        {count(daysPerWeek, 'day')} a week). Data the camera uses for other things comes on top.
      </p>
    </div>
  );
}
