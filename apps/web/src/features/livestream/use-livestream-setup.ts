import type { LivestreamSummary } from '@farmcam/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from '../../lib/router/index.ts';
import { errorMessage } from '../../lib/api-client.ts';
import { toast } from '../../lib/toast.tsx';
import { useConfigureRtsp } from './api/configure-rtsp.ts';
import { useLivestreamCameras } from './api/livestream-cameras.ts';
import { useRecordNow } from './api/record-now.ts';
import { useSetupCamera } from './api/setup-camera.ts';
import { useShareCode } from './api/share-code.ts';
import {
  formatScheduleText,
  livestreamRtspPort,
  previewDurationSeconds,
  rtspPathByQuality,
} from '@farmcam/contract/rules';
import { defaultSettings, settingsOf, type LivestreamSettings } from './livestream-settings.ts';
import {
  configureFailure,
  immediateStreamingFailure,
  noCameraSelectedMessage,
  previewFailure,
  setupCameraFailure,
} from './setup-messages.ts';
import { useSimulatedProgress } from './use-simulated-progress.ts';

export type SetupStep = 'select' | 'configure' | 'submitted';

/** docs/requirements.md#limits: the simulated progress takes 15 s for the camera set-up and 3 s for the stream. */
export const setupExpectedMs = 15_000;
export const configureExpectedMs = 3_000;
/** docs/requirements.md#states: pauses between a finished step and the next. */
export const selectToConfigureDelayMs = 500;
export const configureToSubmittedDelayMs = 300;
/** docs/requirements.md#limits: the share-success toast closes after 3 s. */
export const shareToastMs = 3000;

/**
 * The livestream setup's state and calls (the page, livestream-setup-page.tsx, only shows them):
 * the chosen camera, the step, the settings, the preview and first clip, and the errors with the
 * Try Again each one offers.
 */
export function useLivestreamSetup() {
  const cameras = useLivestreamCameras();
  const [searchParams] = useSearchParams();
  const [step, setStep] = useState<SetupStep>('select');
  const [selectedId, setSelectedId] = useState<string | null>(searchParams.get('camera'));
  const [settings, setSettings] = useState<LivestreamSettings>(defaultSettings);
  const [previewKey, setPreviewKey] = useState<string>();
  const [firstClipKey, setFirstClipKey] = useState<string>();
  const [previewStartError, setPreviewStartError] = useState<string | null>(null);
  const [previewState, setPreviewState] = useState<'idle' | 'starting' | 'started' | 'failed'>(
    'idle',
  );
  const [livestream, setLivestream] = useState<LivestreamSummary>();
  const [errors, setErrors] = useState<string[]>([]);
  const retryRef = useRef<(() => void) | null>(null);
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);

  const setupProgress = useSimulatedProgress(setupExpectedMs);
  const configureProgress = useSimulatedProgress(configureExpectedMs);
  const setupCamera = useSetupCamera();
  const configureRtsp = useConfigureRtsp();
  const recordNow = useRecordNow();
  const shareCode = useShareCode();

  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach(clearTimeout);
  }, []);

  const later = useCallback((delayMs: number, action: () => void) => {
    timers.current.push(setTimeout(action, delayMs));
  }, []);

  const camera = cameras.data?.cameras.find((candidate) => candidate.SIM_ICCID === selectedId);

  function fail(message: string, retry: (() => void) | null) {
    retryRef.current = retry;
    setErrors((current) => (current.includes(message) ? current : [...current, message]));
  }

  /** The 5-second preview (docs/requirements.md#states): started on entering configure; its failure does not block. */
  function startPreview(cameraId: string) {
    setPreviewState('starting');
    setPreviewStartError(null);
    recordNow.mutate(
      {
        camera_id: cameraId,
        rtsp_port: livestreamRtspPort,
        rtsp_path: rtspPathByQuality.SD,
        duration: previewDurationSeconds,
        include_audio: false,
      },
      {
        onSuccess: (response) => {
          setPreviewKey(response.data.s3_key);
          setPreviewState('started');
        },
        onError: (error) => {
          setPreviewState('failed');
          setPreviewStartError(errorMessage(error, 'Failed to start preview streaming'));
          // Try Again records the preview again (the rest of the setup has not failed).
          fail(previewFailure(error), () => startPreview(cameraId));
        },
      },
    );
  }

  function runSetup() {
    if (!selectedId || !camera) {
      fail(noCameraSelectedMessage, null);
      return;
    }
    const cameraId = selectedId;
    setupProgress.start();
    setupCamera.mutate(
      { sim_number: cameraId, ports: [livestreamRtspPort] },
      {
        onSuccess: () => {
          setupProgress.complete();
          // Editing an existing livestream starts from its saved settings.
          setSettings(
            camera.livestream?.isConfigured ? settingsOf(camera.livestream) : defaultSettings,
          );
          later(selectToConfigureDelayMs, () => {
            setStep('configure');
            startPreview(cameraId);
          });
        },
        onError: (error) => {
          setupProgress.reset();
          fail(setupCameraFailure(error), runSetup);
        },
      },
    );
  }

  function runConfigure() {
    if (!camera) return;
    const cameraId = camera.SIM_ICCID;
    const rtspPath = rtspPathByQuality[settings.quality];
    configureProgress.start();
    configureRtsp.mutate(
      {
        camera_id: cameraId,
        rtsp_port: livestreamRtspPort,
        rtsp_path: rtspPath,
        duration: settings.duration,
        include_audio: settings.includeAudio,
        is_active: true,
        schedule: formatScheduleText(settings.scheduleHours, settings.scheduleDays),
      },
      {
        onSuccess: (response) => {
          configureProgress.complete();
          setLivestream(response.data);
          // A first full clip now, so the website has something to play before the next slot.
          recordNow.mutate(
            {
              camera_id: cameraId,
              rtsp_port: livestreamRtspPort,
              rtsp_path: rtspPath,
              duration: settings.duration,
              include_audio: settings.includeAudio,
            },
            {
              onSuccess: (response) => setFirstClipKey(response.data.s3_key),
              onError: (error) => fail(immediateStreamingFailure(error), null),
            },
          );
          later(configureToSubmittedDelayMs, () => setStep('submitted'));
        },
        onError: (error) => {
          configureProgress.reset();
          fail(configureFailure(error), runConfigure);
        },
      },
    );
  }

  async function share(email: string): Promise<void> {
    if (!camera || !livestream) throw new Error('Nothing to share yet');
    await shareCode.mutateAsync({
      camera_id: camera.SIM_ICCID,
      email_address: email,
      html_code: livestream.embedCode,
    });
    toast.success('Livestream code shared successfully!', { autoClose: shareToastMs });
  }

  function closeErrors() {
    retryRef.current = null;
    setErrors([]);
  }

  function tryAgain() {
    const retry = retryRef.current;
    closeErrors();
    retry?.();
  }

  return {
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
    isSettingUp: setupCamera.isPending || setupProgress.value === 100,
    isConfiguring: configureRtsp.isPending || configureProgress.value === 100,
    runSetup,
    runConfigure,
    share,
    tryAgain,
    closeErrors,
  };
}
