import { Card } from '../../../components/ui/card.tsx';
import { classNames } from '../../../components/ui/class-names.ts';
import { Loader } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { useLivestreamSetup, type SetupStep } from '../use-livestream-setup.ts';
import { ConfigureStep } from './configure-step.tsx';
import { DemoCameraNotice } from './demo-camera-notice.tsx';
import { SelectStep } from './select-step.tsx';
import { SetupFailedModal } from './setup-failed-modal.tsx';
import { SubmittedStep } from './submitted-step.tsx';
import styles from './livestream-setup.module.css';

const steps: { step: SetupStep; title: string }[] = [
  { step: 'select', title: 'Setup Livestreaming' },
  { step: 'configure', title: 'Configure Livestreaming' },
  { step: 'submitted', title: 'Livestream Active' },
];

/**
 * Livestream setup (/livestreaming/setup, docs/requirements.md#screens and #states): select, configure, submitted. The state
 * and the calls are in useLivestreamSetup; this shows them.
 */
export function LivestreamSetupPage() {
  const {
    cameras,
    step,
    selectedId,
    setSelectedId,
    camera,
    settings,
    setSettings,
    previewKey,
    firstClipKey,
    previewStartError,
    previewState,
    livestream,
    errors,
    setupProgress,
    configureProgress,
    isSettingUp,
    isConfiguring,
    runSetup,
    runConfigure,
    share,
    tryAgain,
    closeErrors,
  } = useLivestreamSetup();

  if (cameras.isPending) return <Loader label="Loading your cameras…" />;
  if (cameras.isError) {
    return (
      <Card title="Could not load your cameras">
        <p>{errorMessage(cameras.error, 'Please try again in a moment.')}</p>
        <button type="button" className={styles.linkButton} onClick={() => void cameras.refetch()}>
          Try again
        </button>
      </Card>
    );
  }

  const currentIndex = steps.findIndex((candidate) => candidate.step === step);
  return (
    <div className={styles.page}>
      <DemoCameraNotice />
      <ol className={styles.steps} aria-label="Setup steps">
        {steps.map((candidate, index) => (
          <li
            key={candidate.step}
            className={classNames(
              styles.stepItem,
              index === currentIndex && styles.stepCurrent,
              index < currentIndex && styles.stepDone,
            )}
            aria-current={index === currentIndex ? 'step' : undefined}
          >
            <span className={styles.stepNumber} aria-hidden="true">
              {index < currentIndex ? '✓' : index + 1}
            </span>
            {candidate.title}
          </li>
        ))}
      </ol>

      {step === 'select' && (
        <SelectStep
          cameras={cameras.data.cameras}
          selectedId={selectedId}
          onSelect={setSelectedId}
          onSetUp={runSetup}
          progress={setupProgress}
          isBusy={isSettingUp}
        />
      )}
      {step === 'configure' && camera && (
        <ConfigureStep
          camera={camera}
          settings={settings}
          onChange={setSettings}
          onSubmit={runConfigure}
          progress={configureProgress}
          isBusy={isConfiguring}
          previewState={previewState}
        />
      )}
      {step === 'submitted' && camera && livestream && (
        <SubmittedStep
          camera={camera}
          livestream={livestream}
          previewKey={previewKey}
          firstClipKey={firstClipKey}
          previewStartError={previewStartError}
          supportEmail={cameras.data.supportEmail}
          onShare={share}
        />
      )}

      <SetupFailedModal errors={errors} onTryAgain={tryAgain} onClose={closeErrors} />
    </div>
  );
}
